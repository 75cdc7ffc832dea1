/* The state packing of model/encoding/packed.py in C, for the classic layout without option fields.
 *
 * The successor function is not here: it is generated from the step descriptions
 * (model/steps/described.py) by model/native/cwriter.py and compiled once per generated source
 * (model/native/compiled.py, with kernel_frame.h). Anything this fast path does not handle goes
 * to the Python function it was given.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

/* ---- pack / unpack (model/encoding/packed.py) ------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int flat;
    PyObject *fallback; /* the Python function, for anything this fast path does not handle */
} Packer;

/* A leading 1 byte, the flat fields as signed bytes, the request codes as bytes: one big-endian int. */
static PyObject *pack_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Packer *p = (Packer *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "pack(state) takes exactly one positional argument");
        return NULL;
    }
    PyObject *s = args[0];
    unsigned char buf[512];
    if (!PyTuple_CheckExact(s) || PyTuple_GET_SIZE(s) != p->flat + 1) goto slow;
    PyObject *reqs = PyTuple_GET_ITEM(s, p->flat);
    if (!PyTuple_CheckExact(reqs) || PyTuple_GET_SIZE(reqs) + p->flat + 1 > (Py_ssize_t)sizeof(buf)) goto slow;
    buf[0] = 1;
    for (int i = 0; i < p->flat; i++) {
        PyObject *x = PyTuple_GET_ITEM(s, i);
        if (!PyLong_CheckExact(x)) goto slow;
        int overflow;
        long v = PyLong_AsLongAndOverflow(x, &overflow);
        if (overflow || v < -128 || v > 127) goto slow;
        buf[1 + i] = (unsigned char)(signed char)v;
    }
    Py_ssize_t m = PyTuple_GET_SIZE(reqs);
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *x = PyTuple_GET_ITEM(reqs, i);
        if (!PyLong_CheckExact(x)) goto slow;
        int overflow;
        long v = PyLong_AsLongAndOverflow(x, &overflow);
        if (overflow || v < 0 || v > 255) goto slow;
        buf[1 + p->flat + i] = (unsigned char)v;
    }
    return _PyLong_FromByteArray(buf, (size_t)(1 + p->flat + m), 0, 0);
slow:
    return PyObject_CallOneArg(p->fallback, s);
}

static PyObject *unpack_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Packer *p = (Packer *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "unpack(packed) takes exactly one positional argument");
        return NULL;
    }
    PyObject *v = args[0];
    if (!PyLong_CheckExact(v) || _PyLong_Sign(v) <= 0) return PyObject_CallOneArg(p->fallback, v);
    size_t bits = _PyLong_NumBits(v);
    if (bits == (size_t)-1 && PyErr_Occurred()) return NULL;
    size_t nbytes = (bits + 7) >> 3;
    unsigned char buf[512];
    if (nbytes > sizeof(buf) || nbytes < (size_t)p->flat + 1) return PyObject_CallOneArg(p->fallback, v);
    if (_PyLong_AsByteArray((PyLongObject *)v, buf, nbytes, 0, 0) < 0) return NULL;
    Py_ssize_t m = (Py_ssize_t)nbytes - 1 - p->flat;
    PyObject *out = PyTuple_New(p->flat + 1);
    if (!out) return NULL;
    for (int i = 0; i < p->flat; i++) {
        PyObject *x = PyLong_FromLong((long)(signed char)buf[1 + i]);
        if (!x) { Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(out, i, x);
    }
    PyObject *reqs = PyTuple_New(m);
    if (!reqs) { Py_DECREF(out); return NULL; }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *x = PyLong_FromLong((long)buf[1 + p->flat + i]);
        if (!x) { Py_DECREF(reqs); Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(reqs, i, x);
    }
    PyTuple_SET_ITEM(out, p->flat, reqs);
    return out;
}

static void packer_dealloc(Packer *p) {
    Py_XDECREF(p->fallback);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyObject *packer_new_common(PyTypeObject *type, PyObject *args, vectorcallfunc fn) {
    int flat;
    PyObject *fallback;
    if (!PyArg_ParseTuple(args, "iO", &flat, &fallback)) return NULL;
    if (flat < 0 || flat > 400 || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "(flat field count 0..400, the Python function to fall back on)");
        return NULL;
    }
    Packer *p = (Packer *)type->tp_alloc(type, 0);
    if (!p) return NULL;
    p->vectorcall = fn;
    p->flat = flat;
    Py_INCREF(fallback);
    p->fallback = fallback;
    return (PyObject *)p;
}

static PyObject *pack_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    return packer_new_common(type, args, pack_vectorcall);
}

static PyObject *unpack_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    return packer_new_common(type, args, unpack_vectorcall);
}

static PyTypeObject PackType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "isrcheck.model.native._classic.Pack",
    .tp_doc = "Pack(flat, fallback)(state) -> int: model/encoding/packed.py's pack in C.",
    .tp_basicsize = sizeof(Packer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = pack_new,
    .tp_dealloc = (destructor)packer_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Packer, vectorcall),
};

static PyTypeObject UnpackType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "isrcheck.model.native._classic.Unpack",
    .tp_doc = "Unpack(flat, fallback)(packed) -> state: model/encoding/packed.py's unpack in C.",
    .tp_basicsize = sizeof(Packer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = unpack_new,
    .tp_dealloc = (destructor)packer_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Packer, vectorcall),
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_classic",
    "The classic model's state packing in C (see model/native/packing.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__classic(void) {
    if (PyType_Ready(&PackType) < 0 || PyType_Ready(&UnpackType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&PackType);
    Py_INCREF(&UnpackType);
    if (PyModule_AddObject(m, "Pack", (PyObject *)&PackType) < 0 ||
        PyModule_AddObject(m, "Unpack", (PyObject *)&UnpackType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
