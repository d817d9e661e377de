// The pieces of the `_ridgeline` module, one function per binding file, so that module.cpp
// only wires them up (see python/ridgeline/__init__.py for the Python-facing API).
#pragma once

#include <pybind11/pybind11.h>

namespace ridgeline::python {

// run_command(name, args): a `ridgeline NAME ...` subcommand run in-process (bind_commands.cpp).
void bind_commands(pybind11::module_& m);
// op_json(ops_json, gpu, sets, profile): ops predicted through the library (bind_op.cpp).
void bind_op(pybind11::module_& m);

}  // namespace ridgeline::python
