package io.changelake.e2e.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Heap high-water marks while it runs: the highest heap occupancy sampled (garbage included) and
 * the highest occupancy right after a collection (what was really live).
 */
final class HeapWatcher implements AutoCloseable {

  private final Thread sampler;
  private final List<Runnable> unsubscribe = new ArrayList<>();
  private volatile boolean running = true;
  private volatile long peakUsed;
  private volatile long peakAfterGc;

  HeapWatcher() {
    System.gc();
    NotificationListener listener = this::onGc;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
        unsubscribe.add(
            () -> {
              try {
                emitter.removeNotificationListener(listener);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
      }
    }
    sampler =
        new Thread(
            () -> {
              while (running) {
                long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                peakUsed = Math.max(peakUsed, used);
                SinkRunner.sleep(50);
              }
            },
            "bench-heap-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void onGc(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
        notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long after = 0;
    for (MemoryUsage usage : info.getGcInfo().getMemoryUsageAfterGc().values()) {
      after += usage.getUsed();
    }
    // non-heap pools (metaspace, code cache) are in the map too: subtract them
    for (var pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.NON_HEAP) {
        MemoryUsage u = info.getGcInfo().getMemoryUsageAfterGc().get(pool.getName());
        if (u != null) {
          after -= u.getUsed();
        }
      }
    }
    peakAfterGc = Math.max(peakAfterGc, after);
  }

  long peakUsedBytes() {
    return peakUsed;
  }

  long peakLiveBytes() {
    return peakAfterGc;
  }

  static long maxHeapBytes() {
    return Runtime.getRuntime().maxMemory();
  }

  @Override
  public void close() {
    running = false;
    unsubscribe.forEach(Runnable::run);
  }
}
