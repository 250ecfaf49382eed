package io.changelake.configs.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process and keeps what it printed. */
record CliRun(int exitCode, String out, String err) {

  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = ChangelakeCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new CliRun(code, out.toString(), err.toString());
  }

  /** Everything printed, for assertion messages. */
  String all() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
