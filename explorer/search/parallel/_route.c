/* The sharded workers' routing loop in C (explorer/search/parallel/route.py has the same function
 * in Python, and says what it does; this is only the loop without the interpreter).
 *
 * route(out, base, pack, sent, visited, workers, spread, keys, wheres) -> bool
 *
 * For each successor (action, state) of `out` in order: its key is pack(state) (state itself when
 * pack is None); a key in `sent` or in `visited` is dropped; any other is added to `sent` and
 * appended to keys[d], with base | index appended to wheres[d], where d = hash(key) % spread %
 * workers (Python's modulo: never negative). Returns False, having done nothing, when `out` is not
 * a list of pairs (the Python function handles it then); raises what pack, hash or the set raise.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
route(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "route takes 9 arguments");
        return NULL;
    }
    PyObject *out = args[0], *pack = args[2], *sent = args[3], *visited = args[4];
    PyObject *keys = args[7], *wheres = args[8];
    unsigned long long base = PyLong_AsUnsignedLongLong(args[1]);
    if (base == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t workers = PyLong_AsSsize_t(args[5]);
    Py_ssize_t spread = PyLong_AsSsize_t(args[6]);
    if ((workers == -1 || spread == -1) && PyErr_Occurred())
        return NULL;
    if (workers < 1 || spread < 1 || !PySet_Check(sent) || !PyAnySet_Check(visited) || !PyList_Check(keys)
        || !PyList_Check(wheres) || PyList_GET_SIZE(keys) != workers || PyList_GET_SIZE(wheres) != workers) {
        PyErr_SetString(PyExc_TypeError, "route: bad arguments");
        return NULL;
    }
    for (Py_ssize_t d = 0; d < workers; d++) {
        if (!PyList_Check(PyList_GET_ITEM(keys, d)) || !PyList_Check(PyList_GET_ITEM(wheres, d))) {
            PyErr_SetString(PyExc_TypeError, "route: keys and wheres must be lists of lists");
            return NULL;
        }
    }
    if (!PyList_Check(out))
        Py_RETURN_FALSE;
    Py_ssize_t n = PyList_GET_SIZE(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(out, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2)
            Py_RETURN_FALSE;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        /* `out` is the caller's own list, and pack may run Python code: hold the pair. */
        PyObject *item = PyList_GET_ITEM(out, i);
        Py_INCREF(item);
        PyObject *state = PyTuple_GET_ITEM(item, 1);
        PyObject *key;
        if (pack == Py_None) {
            key = state;
            Py_INCREF(key);
        } else {
            key = PyObject_CallOneArg(pack, state);
        }
        Py_DECREF(item);
        if (key == NULL)
            return NULL;
        int known = PySet_Contains(sent, key);
        if (known == 0)
            known = PySet_Contains(visited, key);
        if (known != 0) {
            Py_DECREF(key);
            if (known < 0)
                return NULL;
            continue;
        }
        Py_hash_t h = PyObject_Hash(key);
        if (h == -1 && PyErr_Occurred()) {
            Py_DECREF(key);
            return NULL;
        }
        Py_ssize_t d = (Py_ssize_t)(h % spread);
        if (d < 0)
            d += spread;
        d %= workers;
        PyObject *where = PyLong_FromUnsignedLongLong(base | (unsigned long long)i);
        if (where == NULL || PySet_Add(sent, key) < 0 || PyList_Append(PyList_GET_ITEM(keys, d), key) < 0
            || PyList_Append(PyList_GET_ITEM(wheres, d), where) < 0) {
            Py_XDECREF(where);
            Py_DECREF(key);
            return NULL;
        }
        Py_DECREF(where);
        Py_DECREF(key);
    }
    Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"route", (PyCFunction)(void (*)(void))route, METH_FASTCALL,
     "Route one state's successors to their owners (explorer/search/parallel/route.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_route", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__route(void)
{
    return PyModule_Create(&module);
}
