"""fentros-trace: records fentros traces into trace.dat files and converts them.

Modules:
  machine   boots the built kernel in QEMU and drives its shell
  channel   the framed byte stream `xfer` sends over the debug console
  shmchan   the host channel: the ring of frames `xfer -c` writes into shared memory
  ringpage  fentros's ring-buffer pages in, Linux's pages out
  widen     fentros's compact tracer records -> Linux 6.1's ftrace records
  tracedat  trace.dat version 6: writer and reader
  formats   event format files: field layouts, decoding records
  convert   Chrome trace-event JSON and folded stacks
  record    the `record` command
"""
