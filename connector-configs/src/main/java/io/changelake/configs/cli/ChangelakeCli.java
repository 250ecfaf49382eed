package io.changelake.configs.cli;

/** Entry point of the changelake command line. */
public final class ChangelakeCli {
  private ChangelakeCli() {}

  public static void main(String[] args) {
    System.out.println("changelake: not yet implemented");
  }
}
