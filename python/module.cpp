// The compiled half of the `ridgeline` Python package. It turns the library's two kinds of
// error into Python exceptions (InputError, a ValueError, for bad input with the message the
// CLI prints; InternalError for a broken invariant) and registers the bindings. Values cross
// the boundary as JSON text: the same text the CLI's `--format json` views print, so that a
// dict from Python equals json.loads of the CLI's output by construction.
#include "common/errors.h"
#include "python/bindings.h"

namespace py = pybind11;

PYBIND11_MODULE(_ridgeline, m) {
  m.doc() = "ridgeline's libraries, driven as the CLI drives them (use the `ridgeline` package)";
  static py::exception<ridgeline::InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<ridgeline::InternalError> internal_error(m, "InternalError",
                                                                PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ridgeline::InputError& e) {
      input_error(e.what());
    } catch (const ridgeline::InternalError& e) {
      internal_error(e.what());
    }
  });
  ridgeline::python::bind_commands(m);
  ridgeline::python::bind_op(m);
}
