package io.changelake.lsm.testing;

import io.changelake.lsm.commit.OffsetFallbackStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Makes reading and writing the offset copies of a table fail right after a commit. {@link #block}
 * puts a directory where one user's file belongs (reading it reports a missing file: a terminal
 * failure); {@link #blockAll} puts a file where the copies' directory belongs (an I/O error of the
 * warehouse, as an object store timing out would give). Closing puts everything back as it was.
 */
public final class OffsetCopyFault implements AutoCloseable {
  private final Path file;
  private final byte[] saved;
  private final Path movedDirectory;

  private OffsetCopyFault(Path file, byte[] saved) {
    this(file, saved, null);
  }

  private OffsetCopyFault(Path file, byte[] saved, Path movedDirectory) {
    this.file = file;
    this.saved = saved;
    this.movedDirectory = movedDirectory;
  }

  /** Blocks the copies of every user in the table directory {@code table}. */
  public static OffsetCopyFault blockAll(Path table) {
    Path directory = table.resolve(OffsetFallbackStore.DIRECTORY);
    Path aside = table.resolve(OffsetFallbackStore.DIRECTORY + ".aside");
    try {
      Files.move(directory, aside);
      Files.writeString(directory, "in the way");
      return new OffsetCopyFault(directory, null, aside);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Blocks the copy of {@code commitUser} in the table directory {@code table}. */
  public static OffsetCopyFault block(Path table, String commitUser) {
    Path file =
        table
            .resolve(OffsetFallbackStore.DIRECTORY)
            .resolve(URLEncoder.encode(commitUser, StandardCharsets.UTF_8) + ".properties");
    try {
      byte[] saved = Files.exists(file) ? Files.readAllBytes(file) : null;
      Files.deleteIfExists(file);
      Files.createDirectories(file);
      return new OffsetCopyFault(file, saved);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      Files.delete(file);
      if (movedDirectory != null) {
        Files.move(movedDirectory, file);
        return;
      }
      if (saved != null) {
        Files.write(file, saved);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
