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
#include <string.h>

/* The loop of route() over a list of pairs already checked; 0, or -1 with an exception set. */
static int
route_pairs(PyObject *out, unsigned long long base, PyObject *pack, PyObject *sent, PyObject *visited,
            Py_ssize_t workers, Py_ssize_t spread, PyObject *keys, PyObject *wheres)
{
    Py_ssize_t n = PyList_GET_SIZE(out);
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
            return -1;
        int known = PySet_Contains(sent, key);
        if (known == 0)
            known = PySet_Contains(visited, key);
        if (known != 0) {
            Py_DECREF(key);
            if (known < 0)
                return -1;
            continue;
        }
        Py_hash_t h = PyObject_Hash(key);
        if (h == -1 && PyErr_Occurred()) {
            Py_DECREF(key);
            return -1;
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
            return -1;
        }
        Py_DECREF(where);
        Py_DECREF(key);
    }
    return 0;
}

static int
pairs(PyObject *out)
{
    Py_ssize_t n = PyList_GET_SIZE(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(out, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2)
            return 0;
    }
    return 1;
}

static int
check_targets(PyObject *sent, PyObject *visited, Py_ssize_t workers, Py_ssize_t spread, PyObject *keys,
              PyObject *wheres)
{
    if (workers < 1 || spread < 1 || !PySet_Check(sent) || !PyAnySet_Check(visited) || !PyList_Check(keys)
        || !PyList_Check(wheres) || PyList_GET_SIZE(keys) != workers || PyList_GET_SIZE(wheres) != workers) {
        PyErr_SetString(PyExc_TypeError, "route: bad arguments");
        return -1;
    }
    for (Py_ssize_t d = 0; d < workers; d++) {
        if (!PyList_Check(PyList_GET_ITEM(keys, d)) || !PyList_Check(PyList_GET_ITEM(wheres, d))) {
            PyErr_SetString(PyExc_TypeError, "route: keys and wheres must be lists of lists");
            return -1;
        }
    }
    return 0;
}

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
    if (check_targets(sent, visited, workers, spread, keys, wheres) < 0)
        return NULL;
    if (!PyList_Check(out) || !pairs(out))
        Py_RETURN_FALSE;
    if (route_pairs(out, base, pack, sent, visited, workers, spread, keys, wheres) < 0)
        return NULL;
    Py_RETURN_TRUE;
}

/* expand(items, numbers, unpack, successors, pack, sent, visited, workers, spread, keys, wheres,
 *        index_bits, most) -> (counts, first number without successors or -1, stopped at)
 *
 * A worker's expand loop for the common case (Shard.expand says when): for each frontier item and
 * its number (`numbers`: the bytes of an array('Q')), state = unpack(item), out =
 * list(successors(state)), its length appended to counts, then route() of out with base
 * number << index_bits. A state with more than `most` successors, or whose successors are not
 * pairs, is left to the caller's Python loop with every state after it: "stopped at" is its
 * position (len(items) when every state was expanded here). */
static PyObject *
expand(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "expand takes 13 arguments");
        return NULL;
    }
    PyObject *items = args[0], *numbers = args[1], *unpack = args[2], *successors = args[3], *pack = args[4];
    PyObject *sent = args[5], *visited = args[6], *keys = args[9], *wheres = args[10];
    Py_ssize_t workers = PyLong_AsSsize_t(args[7]), spread = PyLong_AsSsize_t(args[8]);
    long bits = PyLong_AsLong(args[11]);
    Py_ssize_t most = PyLong_AsSsize_t(args[12]);
    if (PyErr_Occurred())
        return NULL;
    if (check_targets(sent, visited, workers, spread, keys, wheres) < 0)
        return NULL;
    if (!PyList_Check(items) || !PyBytes_Check(numbers)
        || PyBytes_GET_SIZE(numbers) != PyList_GET_SIZE(items) * (Py_ssize_t)sizeof(unsigned long long)) {
        PyErr_SetString(PyExc_TypeError, "expand: items must be a list and numbers the bytes of as many uint64");
        return NULL;
    }
    const char *raw = PyBytes_AS_STRING(numbers);
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *counts = PyList_New(0);
    if (counts == NULL)
        return NULL;
    long long empty = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long number;
        memcpy(&number, raw + i * sizeof(unsigned long long), sizeof number);
        PyObject *item = PyList_GET_ITEM(items, i);
        PyObject *state;
        if (unpack == Py_None) {
            state = item;
            Py_INCREF(state);
        } else {
            state = PyObject_CallOneArg(unpack, item);
            if (state == NULL)
                goto fail;
        }
        PyObject *got = PyObject_CallOneArg(successors, state);
        Py_DECREF(state);
        if (got == NULL)
            goto fail;
        PyObject *out = got;
        if (!PyList_CheckExact(got)) {
            out = PySequence_List(got);
            Py_DECREF(got);
            if (out == NULL)
                goto fail;
        }
        Py_ssize_t size = PyList_GET_SIZE(out);
        if (size > most || !pairs(out)) {
            Py_DECREF(out);
            PyObject *r = Py_BuildValue("(OLn)", counts, empty, i);
            Py_DECREF(counts);
            return r;
        }
        PyObject *c = PyLong_FromSsize_t(size);
        if (c == NULL || PyList_Append(counts, c) < 0) {
            Py_XDECREF(c);
            Py_DECREF(out);
            goto fail;
        }
        Py_DECREF(c);
        if (size == 0 && empty < 0)
            empty = (long long)number;
        int failed = route_pairs(out, number << bits, pack, sent, visited, workers, spread, keys, wheres);
        Py_DECREF(out);
        if (failed < 0)
            goto fail;
    }
    PyObject *result = Py_BuildValue("(OLn)", counts, empty, n);
    Py_DECREF(counts);
    return result;
fail:
    Py_DECREF(counts);
    return NULL;
}

/* settle(keys, wheres, visited) -> (frontier, discovered bytes) | None
 *
 * keys: a list of lists of keys, one per source; wheres: for each source the bytes of an
 * array('Q') of discovery keys, as long as its keys (discovery keys are unique over all sources).
 * In ascending discovery-key order, each key not in `visited` is added to it and to the frontier,
 * its discovery key to `discovered`; a key met again later has a larger discovery key and is in
 * `visited` by then. So each new state keeps its smallest discovery key, its first discovery in
 * one-process search order. None, having done nothing, when the arguments are not of that shape
 * (the Python function handles them). */
typedef struct {
    unsigned long long where;
    PyObject *key; /* borrowed from the caller's lists */
} Candidate;

static int
by_where(const void *a, const void *b)
{
    unsigned long long x = ((const Candidate *)a)->where, y = ((const Candidate *)b)->where;
    return (x > y) - (x < y);
}

static PyObject *
settle(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "settle takes 3 arguments");
        return NULL;
    }
    PyObject *keys = args[0], *wheres = args[1], *visited = args[2];
    if (!PyList_Check(keys) || !PyList_Check(wheres) || !PySet_Check(visited)
        || PyList_GET_SIZE(keys) != PyList_GET_SIZE(wheres))
        Py_RETURN_NONE;
    Py_ssize_t sources = PyList_GET_SIZE(keys), total = 0;
    for (Py_ssize_t s = 0; s < sources; s++) {
        PyObject *k = PyList_GET_ITEM(keys, s), *w = PyList_GET_ITEM(wheres, s);
        if (!PyList_Check(k) || !PyBytes_Check(w)
            || PyBytes_GET_SIZE(w) != PyList_GET_SIZE(k) * (Py_ssize_t)sizeof(unsigned long long))
            Py_RETURN_NONE;
        total += PyList_GET_SIZE(k);
    }
    Candidate *all = PyMem_Malloc(sizeof(Candidate) * (size_t)(total ? total : 1));
    if (all == NULL)
        return PyErr_NoMemory();
    Py_ssize_t at = 0;
    for (Py_ssize_t s = 0; s < sources; s++) {
        PyObject *k = PyList_GET_ITEM(keys, s);
        const char *raw = PyBytes_AS_STRING(PyList_GET_ITEM(wheres, s));
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(k); i++, at++) {
            memcpy(&all[at].where, raw + i * sizeof(unsigned long long), sizeof(unsigned long long));
            all[at].key = PyList_GET_ITEM(k, i);
        }
    }
    qsort(all, (size_t)total, sizeof(Candidate), by_where);
    PyObject *frontier = PyList_New(0);
    unsigned long long *found = PyMem_Malloc(sizeof(unsigned long long) * (size_t)(total ? total : 1));
    Py_ssize_t kept = 0;
    if (frontier == NULL || found == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < total; i++) {
        int known = PySet_Contains(visited, all[i].key);
        if (known < 0)
            goto fail;
        if (known)
            continue;
        if (PySet_Add(visited, all[i].key) < 0 || PyList_Append(frontier, all[i].key) < 0)
            goto fail;
        found[kept++] = all[i].where;
    }
    PyObject *discovered = PyBytes_FromStringAndSize((const char *)found, kept * (Py_ssize_t)sizeof(unsigned long long));
    PyMem_Free(all);
    PyMem_Free(found);
    if (discovered == NULL) {
        Py_DECREF(frontier);
        return NULL;
    }
    PyObject *result = PyTuple_Pack(2, frontier, discovered);
    Py_DECREF(frontier);
    Py_DECREF(discovered);
    return result;
fail:
    PyMem_Free(all);
    PyMem_Free(found);
    Py_XDECREF(frontier);
    return NULL;
}

static PyMethodDef methods[] = {
    {"expand", (PyCFunction)(void (*)(void))expand, METH_FASTCALL,
     "A worker's expand loop for the common case (explorer/search/parallel/route.py)."},
    {"settle", (PyCFunction)(void (*)(void))settle, METH_FASTCALL,
     "A shard's new states of a level, in discovery order (explorer/search/parallel/route.py)."},
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
