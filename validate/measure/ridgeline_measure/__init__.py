"""The measurement harness shared by validate/measure's entry scripts.

measure_ops.py (single kernels), measure_models.py (whole model steps, and
measure_moe.py over it) and measure_launch.py (launch costs) time different
things the same way; what they share lives here, once:

  harness      process clock and budget, logging, percentiles, JSON-safe
               values, atomic JSON writing, the hard-limit watchdog, SIGTERM
  environment  what a data file's "meta" says about the machine: nvidia-smi
               clocks and power, library versions, PyTorch backend switches,
               the L2 size, the CPU
  profiling    which torch.profiler device records are kernels, and what
               attention backend their names suggest
  run          the guard that always leaves a file (interrupts, bugs)
  ops_*        measure_ops.py's steps: Triton kernels, op builders, timing,
               one op and the op list
  models_*     measure_models.py's steps: the case grid, models, inputs and
               steps, profiling and one case
  device       where a measurement's tensors live
  hf_*         measure_hf.py's steps and the harness of the scripts over it
               (measure_hf_compile/_families/_cb.py): cases, timing and
               profiling, models and caches, workloads, single kernels, and
               hf_run (meta, document writer with watchdog, GPU warm-up)

Every module imports without torch (so --dry-run, --help and py_compile work
on a machine without a GPU); what needs torch looks it up when called.
"""
