{
  "targets": [
    {
      "target_name": "live_port",
      "sources": ["chassis/io/native/live_port.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS!='linux'", {"type": "none", "sources!": ["chassis/io/native/live_port.c"]}]]
    }
  ]
}
