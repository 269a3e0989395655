"""ducktable.bench: measuring the camera path, the boards and the web server (figures in docs/benchmarks.md)."""
