package io.changelake.lsm.testing;

import io.changelake.lsm.commit.OffsetFallbackStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Makes reading and writing one commit user's offset copy of one table fail, as an object store
 * timing out right after a commit would: a directory stands where the file belongs. Closing puts
 * the file back as it was.
 */
public final class OffsetCopyFault implements AutoCloseable {
  private final Path file;
  private final byte[] saved;

  private OffsetCopyFault(Path file, byte[] saved) {
    this.file = file;
    this.saved = saved;
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
      if (saved != null) {
        Files.write(file, saved);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
