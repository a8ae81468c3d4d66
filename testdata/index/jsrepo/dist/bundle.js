function bundled() {}
