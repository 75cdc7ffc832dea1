/* WeakIsr and StrongIsr (properties/isr.py) in C, for the classic layout.
 *
 * The two invariants run on every new state of a search, and in Python they were about a fifth of
 * a parallel worker's time. What is compiled is only the predicate's loops: for each replica that
 * presumes leadership with HW > 0, every member of an ISR (its cached one for WeakIsr, the
 * quorum's for StrongIsr) must share the log's first HW records. The protocol's table, the common
 * prefix of two logs, stays in Python (isrcheck.model.encoding.logs.LogTables.common_prefixes) and is read
 * through its memo once per pair, then cached here. Anything this code does not expect (not a
 * tuple of plain ints, a log code outside the table, an ISR mask with bits beyond the replicas)
 * goes to the Python predicate it wraps, so the answer is always the Python one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#define MAXN 8
/* Offsets within a replica's block (isrcheck.model.encoding.state). */
enum { LOG = 0, HW = 1, LEADER = 3, ISR = 4 };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int n, quorum, q_isr, min_length;
    int base[MAXN];
    Py_ssize_t size;       /* log codes: pair keys are a * size + b */
    PyObject *bases;       /* the constructor's arguments, for pickling (the Spark engine ships */
    PyObject *prefixes;    /* properties to executors); prefixes: the memo, indexed by pair key */
    int16_t *cache;        /* common prefix + 1 by pair key, 0 = not read yet */
    PyObject *fallback;    /* the Python predicate */
} IsrAgreement;

/* A field as a C long; 0 when it is not a plain int (the caller then falls back). */
static inline int field(PyObject *s, int i, long *v) {
    PyObject *x = PyTuple_GET_ITEM(s, i);
    if (!PyLong_CheckExact(x)) return 0;
    int overflow;
    *v = PyLong_AsLongAndOverflow(x, &overflow);
    return !overflow;
}

/* The common prefix of logs a and b; -1 with an exception set on failure. */
static long prefix(IsrAgreement *p, long a, long b) {
    Py_ssize_t key = (Py_ssize_t)a * p->size + b;
    int16_t c = p->cache[key];
    if (c) return c - 1;
    PyObject *k = PyLong_FromSsize_t(key);
    if (!k) return -1;
    PyObject *v = PyObject_GetItem(p->prefixes, k);
    Py_DECREF(k);
    if (!v) return -1;
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < 0 || x > INT16_MAX - 1) {
        PyErr_Format(PyExc_ValueError, "common prefix %ld out of range", x);
        return -1;
    }
    p->cache[key] = (int16_t)(x + 1);
    return x;
}

static PyObject *isr_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    IsrAgreement *p = (IsrAgreement *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "the predicate takes exactly one positional argument, the state");
        return NULL;
    }
    PyObject *s = args[0];
    if (!PyTuple_CheckExact(s) || PyTuple_GET_SIZE(s) < p->min_length) goto slow;
    long logs[MAXN];
    for (int r = 0; r < p->n; r++) {
        if (!field(s, p->base[r] + LOG, &logs[r]) || logs[r] < 0 || logs[r] >= p->size) goto slow;
    }
    long quorum_isr = 0;
    if (p->quorum && (!field(s, p->q_isr, &quorum_isr) || quorum_isr < 0 || quorum_isr >> p->n)) goto slow;
    for (int r = 0; r < p->n; r++) {
        int b = p->base[r];
        long leader, hw, isr;
        if (!field(s, b + LEADER, &leader)) goto slow;
        if (leader != r) continue;
        if (!field(s, b + HW, &hw)) goto slow;
        if (hw == 0) continue;
        if (p->quorum) {
            isr = quorum_isr;
        } else if (!field(s, b + ISR, &isr) || isr < 0 || isr >> p->n) {
            goto slow;
        }
        for (int m = 0; m < p->n; m++) {
            if (!(isr >> m & 1)) continue;
            long k = prefix(p, logs[r], logs[m]);
            if (k < 0) return NULL;
            if (k < hw) Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
slow:
    return PyObject_CallOneArg(p->fallback, s);
}

/* Pickled as its constructor call: an executor builds it again (and falls back if it cannot). */
static PyObject *isr_reduce(PyObject *self, PyObject *unused) {
    IsrAgreement *p = (IsrAgreement *)self;
    return Py_BuildValue("O(OiNOnO)", (PyObject *)Py_TYPE(self), p->bases, p->q_isr, PyBool_FromLong(p->quorum),
                         p->prefixes, p->size, p->fallback);
}

static PyMethodDef isr_methods[] = {
    {"__reduce__", isr_reduce, METH_NOARGS, "pickle support"},
    {NULL, NULL, 0, NULL},
};

static void isr_dealloc(IsrAgreement *p) {
    Py_XDECREF(p->bases);
    Py_XDECREF(p->prefixes);
    Py_XDECREF(p->fallback);
    PyMem_RawFree(p->cache);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

/* IsrAgreement(bases, q_isr, quorum, prefixes, size, fallback) */
static PyObject *isr_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *bases, *prefixes, *fallback;
    int q_isr, quorum;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "O!ipOnO", &PyTuple_Type, &bases, &q_isr, &quorum, &prefixes, &size, &fallback))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(bases);
    /* A pair key must fit the cache: 2 bytes a pair, at most 2^26 pairs (128 MiB). */
    if (n < 1 || n > MAXN || q_isr < 0 || size < 1 || size > 4096 || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "(replica block bases (1..8), quorum ISR index, quorum flag, the common "
                        "prefix memo, the log code count (1..4096), the Python predicate)");
        return NULL;
    }
    IsrAgreement *p = (IsrAgreement *)type->tp_alloc(type, 0);
    if (!p) return NULL;
    p->vectorcall = isr_vectorcall;
    p->n = (int)n;
    p->quorum = quorum;
    p->q_isr = q_isr;
    p->min_length = q_isr + 1;
    for (int r = 0; r < p->n; r++) {
        long b = PyLong_AsLong(PyTuple_GET_ITEM(bases, r));
        if ((b == -1 && PyErr_Occurred()) || b < 0 || b > 4096) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a block base out of range");
            Py_DECREF(p);
            return NULL;
        }
        p->base[r] = (int)b;
        if (b + ISR + 1 > p->min_length) p->min_length = (int)b + ISR + 1;
    }
    p->size = size;
    p->cache = PyMem_RawCalloc((size_t)size * (size_t)size, sizeof(int16_t));
    if (!p->cache) {
        Py_DECREF(p);
        return PyErr_NoMemory();
    }
    Py_INCREF(bases);
    p->bases = bases;
    Py_INCREF(prefixes);
    p->prefixes = prefixes;
    Py_INCREF(fallback);
    p->fallback = fallback;
    return (PyObject *)p;
}

static PyTypeObject IsrAgreementType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "isrcheck.model.native._isr.IsrAgreement",
    .tp_doc = "IsrAgreement(bases, q_isr, quorum, prefixes, size, fallback)(state) -> bool: "
              "properties/isr.py's WeakIsr (quorum false) or StrongIsr (quorum true) predicate in C.",
    .tp_basicsize = sizeof(IsrAgreement),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = isr_new,
    .tp_dealloc = (destructor)isr_dealloc,
    .tp_methods = isr_methods,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(IsrAgreement, vectorcall),
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_isr", "WeakIsr and StrongIsr in C (see model/native/properties.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__isr(void) {
    if (PyType_Ready(&IsrAgreementType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&IsrAgreementType);
    if (PyModule_AddObject(m, "IsrAgreement", (PyObject *)&IsrAgreementType) < 0) {
        Py_DECREF(&IsrAgreementType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
