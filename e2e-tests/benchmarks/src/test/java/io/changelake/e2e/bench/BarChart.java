package io.changelake.e2e.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A grouped bar chart drawn with Java2D: one group per case, one bar per series, the bar at the
 * median and a whisker from minimum to maximum.
 */
final class BarChart {

  private static final Color[] PALETTE = {
    new Color(0x4C72B0),
    new Color(0xDD8452),
    new Color(0x55A868),
    new Color(0xC44E52),
    new Color(0x8172B3),
    new Color(0x937860)
  };

  private final String title;
  private final String yLabel;
  private final List<String> groups;
  private final List<String> series;
  private final Map<String, Results.Stats> values = new LinkedHashMap<>();

  BarChart(String title, String yLabel, List<String> groups, List<String> series) {
    this.title = title;
    this.yLabel = yLabel;
    this.groups = groups;
    this.series = series;
  }

  BarChart set(String group, String seriesName, Results.Stats stats) {
    values.put(group + "\u0000" + seriesName, stats);
    return this;
  }

  void write(Path png) {
    int width = 960;
    int height = 520;
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);

    int left = 90;
    int right = 20;
    int top = 60;
    int bottom = 90;
    int plotW = width - left - right;
    int plotH = height - top - bottom;

    double max = 0;
    for (Results.Stats s : values.values()) {
      if (s != null && !Double.isNaN(s.max())) {
        max = Math.max(max, s.max());
      }
    }
    double step = niceStep(max <= 0 ? 1 : max / 5);
    double yMax = Math.ceil((max <= 0 ? 1 : max) / step) * step;

    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(title, left, 28);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics fm = g.getFontMetrics();

    // grid and y axis labels
    for (double y = 0; y <= yMax + step / 2; y += step) {
      int py = top + plotH - (int) Math.round(y / yMax * plotH);
      g.setColor(new Color(0xE0E0E0));
      g.drawLine(left, py, left + plotW, py);
      g.setColor(Color.DARK_GRAY);
      String label = format(y);
      g.drawString(label, left - 8 - fm.stringWidth(label), py + 4);
    }
    Graphics2D rotated = (Graphics2D) g.create();
    rotated.rotate(-Math.PI / 2);
    rotated.drawString(yLabel, -(top + plotH / 2 + fm.stringWidth(yLabel) / 2), 20);
    rotated.dispose();

    int groupW = plotW / Math.max(1, groups.size());
    int barW = Math.max(6, (int) (groupW * 0.8 / Math.max(1, series.size())));
    for (int gi = 0; gi < groups.size(); gi++) {
      int gx = left + gi * groupW + (groupW - barW * series.size()) / 2;
      for (int si = 0; si < series.size(); si++) {
        Results.Stats s = values.get(groups.get(gi) + "\u0000" + series.get(si));
        if (s == null || Double.isNaN(s.median())) {
          continue;
        }
        int x = gx + si * barW;
        int h = (int) Math.round(s.median() / yMax * plotH);
        g.setColor(PALETTE[si % PALETTE.length]);
        g.fillRect(x + 1, top + plotH - h, barW - 2, h);
        int yMin = top + plotH - (int) Math.round(s.min() / yMax * plotH);
        int yHi = top + plotH - (int) Math.round(s.max() / yMax * plotH);
        int cx = x + barW / 2;
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.5f));
        g.drawLine(cx, yMin, cx, yHi);
        g.drawLine(cx - 4, yMin, cx + 4, yMin);
        g.drawLine(cx - 4, yHi, cx + 4, yHi);
        String label = format(s.median());
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        g.drawString(label, cx - g.getFontMetrics().stringWidth(label) / 2, yHi - 4);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      }
      g.setColor(Color.BLACK);
      String label = groups.get(gi);
      g.drawString(
          label, left + gi * groupW + groupW / 2 - fm.stringWidth(label) / 2, top + plotH + 18);
    }
    g.drawLine(left, top + plotH, left + plotW, top + plotH);

    // legend
    int lx = left;
    int ly = height - 30;
    for (int si = 0; si < series.size(); si++) {
      g.setColor(PALETTE[si % PALETTE.length]);
      g.fillRect(lx, ly - 10, 12, 12);
      g.setColor(Color.BLACK);
      g.drawString(series.get(si), lx + 16, ly);
      lx += 16 + fm.stringWidth(series.get(si)) + 24;
    }
    g.drawString("bars: median; whiskers: min-max", width - 230, height - 52);
    g.dispose();
    try {
      ImageIO.write(image, "png", png.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double niceStep(double raw) {
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * magnitude >= raw) {
        return m * magnitude;
      }
    }
    return 10 * magnitude;
  }

  static String format(double v) {
    if (Math.abs(v) >= 10_000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (Math.abs(v) >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (Math.abs(v) >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
