package main

const traceFormat = "spine-trace/1"
