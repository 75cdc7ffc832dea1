/* The frame of a generated successor function (model/native/compiled.py): everything but the
 * function itself. A generated file includes this, then defines
 * ``static PyObject *successors(Kernel *k, PyObject *s)`` (written by model/native/cwriter.py from
 * the step descriptions of model/steps/described.py), then calls ``kernel_module``.
 *
 * What is here: the state read once and checked (TypeError, ValueError; a value out of range
 * raises OutOfRange, which the kernel turns into a call of the Python function when it has one:
 * nothing trusts an index it did not check), the tables the steps read (handed over once by
 * model/native/kernel.py, the pair tables read through the Python memo on first use and cached
 * here), the action tables, and building the kernel from its spec.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Field offsets within a replica's block (isrcheck.model.encoding.state). */
enum { LOG = 0, HW = 1, EPOCH = 2, LEADER = 3, ISR = 4, FPR = 5 };
#define MAXN 8

/* A value outside the ranges the C code handles (a field outside its domain, a table key or an
 * action index out of range): a ValueError; the kernel then hands the state to the Python function
 * when it has one, so states outside the model's reachable ranges (a counterexample to induction
 * decoded from z3, say) get exactly next.py's answer. */
static PyObject *OutOfRange;

/* ---- a Python table (list or PairTable) read through a C cache ------------------------------ */

typedef struct {
    PyObject *src;      /* indexable by int key; NULL when the table is not used */
    int32_t *cache;     /* value + 2 (values are >= -1), 0 = not read yet */
    Py_ssize_t size;    /* keys are 0..size-1 */
    const char *name;
} Lookup;

static int lookup_get(Lookup *t, Py_ssize_t key, long *out) {
    if (key < 0 || key >= t->size) {
        PyErr_Format(OutOfRange, "native successors: %s key %zd out of range 0..%zd (a log code outside "
                     "the log tables?)", t->name, key, t->size - 1);
        return -1;
    }
    int32_t c = t->cache[key];
    if (c) {
        *out = (long)c - 2;
        return 0;
    }
    PyObject *k = PyLong_FromSsize_t(key);
    if (!k) return -1;
    PyObject *v = PyObject_GetItem(t->src, k);
    Py_DECREF(k);
    if (!v) return -1;
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < -1 || x > INT32_MAX - 2) {
        PyErr_Format(OutOfRange, "native successors: %s[%zd] = %ld is out of range", t->name, key, x);
        return -1;
    }
    t->cache[key] = (int32_t)(x + 2);
    *out = x;
    return 0;
}

static void lookup_free(Lookup *t) {
    Py_CLEAR(t->src);
    PyMem_RawFree(t->cache);
    t->cache = NULL;
}

/* ---- the kernel object ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int n, flat, length;           /* replicas; fields before the requests tuple; state length */
    int nr_i, ql_i, qi_i, rq_i;
    long all_mask, max_epoch, max_records, log_size, size, epochs, isr_mult, hw_mult;
    int *loglen;                   /* length[code], -1 for codes that are not logs */
    long long *pow_;               /* pow[k], k = 0..log_size */
    int *records;                  /* records[code * log_size + k] */
    int *epoch_at;                 /* epoch_at[code * log_size + k] */
    Lookup isr_caught, hw_caught, truncate_to, first_mismatch;
    PyObject *fallback;            /* next.py's successors, for states out of range; NULL: raise */
    PyObject *named;               /* NamedRequests: requests tuple -> ((epoch, leader, isr), ...) */
    PyObject *acts;                /* a tuple: the action table of each step, in the writer's order */
} Kernel;

static PyObject *act(PyObject *root, int depth, const long *idx, const char *name) {
    PyObject *o = root;
    for (int i = 0; i < depth; i++) {
        if (!PyList_Check(o) && !PyTuple_Check(o)) {
            PyErr_Format(PyExc_TypeError, "native successors: the action table %s is not nested lists", name);
            return NULL;
        }
        Py_ssize_t len = PySequence_Fast_GET_SIZE(o);
        if (idx[i] < 0 || idx[i] >= len) {
            PyErr_Format(OutOfRange, "native successors: index %ld out of range for action table %s "
                         "(level %d, size %zd)", idx[i], name, i, len);
            return NULL;
        }
        o = PySequence_Fast_GET_ITEM(o, idx[i]);
    }
    return o; /* borrowed: the table holds it */
}

/* The state being expanded, read once. */
typedef struct {
    PyObject **items;
    long log[MAXN], hw[MAXN], ep[MAXN], ld[MAXN], isr[MAXN];
    long nr, ql, qi;
    PyObject *reqs;
} State;

static PyObject *copy_state(Kernel *k, State *st) {
    PyObject *t = PyTuple_New(k->length);
    if (!t) return NULL;
    for (int i = 0; i < k->length; i++) {
        Py_INCREF(st->items[i]);
        PyTuple_SET_ITEM(t, i, st->items[i]);
    }
    return t;
}

static int set_field(PyObject *t, int i, long v) {
    PyObject *x = PyLong_FromLong(v);
    if (!x) return -1;
    PyObject *old = PyTuple_GET_ITEM(t, i);
    PyTuple_SET_ITEM(t, i, x);
    Py_DECREF(old);
    return 0;
}

/* out.append((action, nxt)); steals nxt. */
static int emit(PyObject *out, PyObject *action, PyObject *nxt) {
    if (!action) {
        Py_DECREF(nxt);
        return -1;
    }
    PyObject *pair = PyTuple_New(2);
    if (!pair) {
        Py_DECREF(nxt);
        return -1;
    }
    Py_INCREF(action);
    PyTuple_SET_ITEM(pair, 0, action);
    PyTuple_SET_ITEM(pair, 1, nxt);
    int rc = PyList_Append(out, pair);
    Py_DECREF(pair);
    return rc;
}

static int read_long(PyObject *o, long *v, int i) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "native successors: state field %d is %.50s, not an int", i, Py_TYPE(o)->tp_name);
        return -1;
    }
    int overflow = 0;
    *v = PyLong_AsLongAndOverflow(o, &overflow);
    if (overflow) {
        PyErr_Format(OutOfRange, "native successors: state field %d is out of range", i);
        return -1;
    }
    return 0;
}

static int bad_range(int i, long v, long lo, long hi) {
    PyErr_Format(OutOfRange, "native successors: state field %d = %ld is outside %ld..%ld", i, v, lo, hi);
    return -1;
}

static int read_state(Kernel *k, PyObject *s, State *st) {
    if (!PyTuple_Check(s)) {
        PyErr_Format(PyExc_TypeError, "native successors: a state is a tuple of %d fields, got %.50s", k->length,
                     Py_TYPE(s)->tp_name);
        return -1;
    }
    if (PyTuple_GET_SIZE(s) != k->length) {
        PyErr_Format(PyExc_ValueError, "native successors: a state is a tuple of %d fields, got %zd", k->length,
                     PyTuple_GET_SIZE(s));
        return -1;
    }
    st->items = &PyTuple_GET_ITEM(s, 0);
    long v;
    for (int r = 0; r < k->n; r++) {
        int b = FPR * r;
        for (int f = 0; f < FPR; f++) {
            if (read_long(st->items[b + f], &v, b + f)) return -1;
            switch (f) {
            case LOG:
                if (v < 0 || v >= k->size || k->loglen[v] < 0) {
                    PyErr_Format(OutOfRange, "native successors: state field %d = %ld is not a log code",
                                 b + f, v);
                    return -1;
                }
                st->log[r] = v; break;
            case HW:
                if (v < 0 || v > k->log_size) return bad_range(b + f, v, 0, k->log_size);
                st->hw[r] = v; break;
            case EPOCH:
                if (v < -1 || v > k->max_epoch) return bad_range(b + f, v, -1, k->max_epoch);
                st->ep[r] = v; break;
            case LEADER:
                if (v < -1 || v >= k->n) return bad_range(b + f, v, -1, k->n - 1);
                st->ld[r] = v; break;
            default:
                if (v < 0 || v > k->all_mask) return bad_range(b + f, v, 0, k->all_mask);
                st->isr[r] = v; break;
            }
        }
    }
    if (read_long(st->items[k->nr_i], &v, k->nr_i)) return -1;
    if (v < 0 || v > k->max_records) return bad_range(k->nr_i, v, 0, k->max_records);
    st->nr = v;
    if (read_long(st->items[k->ql_i], &v, k->ql_i)) return -1;
    if (v < -1 || v >= k->n) return bad_range(k->ql_i, v, -1, k->n - 1);
    st->ql = v;
    if (read_long(st->items[k->qi_i], &v, k->qi_i)) return -1;
    if (v < 0 || v > k->all_mask) return bad_range(k->qi_i, v, 0, k->all_mask);
    st->qi = v;
    st->reqs = st->items[k->rq_i];
    if (!PyTuple_Check(st->reqs)) {
        PyErr_Format(PyExc_TypeError, "native successors: the requests (field %d) are %.50s, not a tuple", k->rq_i,
                     Py_TYPE(st->reqs)->tp_name);
        return -1;
    }
    if (PyTuple_GET_SIZE(st->reqs) > k->max_epoch + 1) {
        PyErr_Format(OutOfRange, "native successors: %zd requests, more than MaxLeaderEpoch + 1 = %ld",
                     PyTuple_GET_SIZE(st->reqs), k->max_epoch + 1);
        return -1;
    }
    return 0;
}

/* named[reqs] as C arrays. */
typedef struct {
    int count;
    long epoch[64], leader[64], isr[64];
} Named;

static int read_named(Kernel *k, State *st, Named *nm) {
    PyObject *named = PyObject_GetItem(k->named, st->reqs);
    if (!named) return -1;
    int rc = -1;
    if (!PyTuple_Check(named) || PyTuple_GET_SIZE(named) > 64) {
        PyErr_SetString(PyExc_TypeError, "native successors: named[requests] is not a tuple of (epoch, leader, isr)");
        goto done;
    }
    nm->count = (int)PyTuple_GET_SIZE(named);
    for (int i = 0; i < nm->count; i++) {
        PyObject *e = PyTuple_GET_ITEM(named, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 3) {
            PyErr_SetString(PyExc_TypeError, "native successors: named[requests] is not a tuple of (epoch, leader, isr)");
            goto done;
        }
        long x[3];
        for (int j = 0; j < 3; j++) {
            x[j] = PyLong_AsLong(PyTuple_GET_ITEM(e, j));
            if (x[j] == -1 && PyErr_Occurred()) goto done;
        }
        if (x[0] < 0 || x[0] > k->max_epoch || x[1] < 0 || x[1] >= k->n || x[2] < 0 || x[2] > k->all_mask) {
            PyErr_Format(OutOfRange, "native successors: a request names epoch %ld, leader %ld, ISR %ld: "
                         "out of range for %d replicas", x[0], x[1], x[2], k->n);
            goto done;
        }
        nm->epoch[i] = x[0];
        nm->leader[i] = x[1];
        nm->isr[i] = x[2];
    }
    rc = 0;
done:
    Py_DECREF(named);
    return rc;
}

/* The controller's new LeaderAndIsr request: nxt's requests become the state's plus ``request``
   (epoch len(requests)). nxt is a fresh copy of the state, so its requests slot can be replaced. */
static int append_request(Kernel *k, State *st, PyObject *nxt, long request) {
    Py_ssize_t count = PyTuple_GET_SIZE(st->reqs);
    PyObject *reqs = PyTuple_New(count + 1);
    if (!reqs) return -1;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *x = PyTuple_GET_ITEM(st->reqs, i);
        Py_INCREF(x);
        PyTuple_SET_ITEM(reqs, i, x);
    }
    PyObject *rq = PyLong_FromLong(request);
    if (!rq) { Py_DECREF(reqs); return -1; }
    PyTuple_SET_ITEM(reqs, count, rq);
    Py_DECREF(PyTuple_GET_ITEM(nxt, k->rq_i));
    PyTuple_SET_ITEM(nxt, k->rq_i, reqs);
    return 0;
}

#define TRY(x) do { if ((x) < 0) goto fail; } while (0)
#define NEW(var) do { var = copy_state(k, &st); if (!var) goto fail; } while (0)
#define SET(var, i, v) do { if (set_field(var, i, v)) { Py_DECREF(var); goto fail; } } while (0)
#define BIT(v, i) ((i) < 31 ? ((v) >> (i)) & 1 : 0)

/* A table lookup inside an expression: the value, or 0 with *err set (checked before the next
   successor is built, so the Python exception is raised, never a wrong state). */
static inline long look(Lookup *t, Py_ssize_t key, int *err) {
    long v;
    if (*err || lookup_get(t, key, &v)) {
        *err = 1;
        return 0;
    }
    return v;
}

/* An offset a truncation table gave, checked before it indexes anything. */
static inline long offset_in_range(Kernel *k, long off, int *err) {
    if (!*err && (off < -1 || off > k->log_size)) {
        PyErr_Format(OutOfRange, "native successors: a truncation table gave %ld", off);
        *err = 1;
    }
    return *err ? 0 : off;
}

static PyObject *successors(Kernel *k, PyObject *s);

static PyObject *kernel_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "successors(state) takes exactly one positional argument");
        return NULL;
    }
    Kernel *k = (Kernel *)self;
    PyObject *out = successors(k, args[0]);
    if (!out && k->fallback && PyErr_ExceptionMatches(OutOfRange)) {
        PyErr_Clear();
        return PyObject_CallOneArg(k->fallback, args[0]);
    }
    return out;
}

/* ---- building the kernel from a spec object (model/native/kernel.py) ------------------------- */

static int attr_long(PyObject *spec, const char *name, long *out) {
    PyObject *v = PyObject_GetAttrString(spec, name);
    if (!v) return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int attr_int(PyObject *spec, const char *name, int *out) {
    long v;
    if (attr_long(spec, name, &v)) return -1;
    *out = (int)v;
    return 0;
}

static int attr_obj(PyObject *spec, const char *name, PyObject **out) {
    *out = PyObject_GetAttrString(spec, name);
    return *out ? 0 : -1;
}

/* ``(table, key_count)`` or None */
static int attr_lookup(PyObject *spec, const char *name, Lookup *t) {
    t->name = name;
    PyObject *v = PyObject_GetAttrString(spec, name);
    if (!v) return -1;
    if (v == Py_None) {
        Py_DECREF(v);
        t->size = 0;
        t->cache = PyMem_RawCalloc(1, sizeof(int32_t));
        return t->cache ? 0 : (PyErr_NoMemory(), -1);
    }
    PyObject *src;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(v, "On", &src, &size) || size < 0) {
        Py_DECREF(v);
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: negative key count", name);
        return -1;
    }
    Py_INCREF(src);
    t->src = src;
    t->size = size;
    Py_DECREF(v);
    t->cache = PyMem_RawCalloc(size ? (size_t)size : 1, sizeof(int32_t));
    if (!t->cache) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* A Python sequence of ints (or of tuples of ints, flattened to ``width`` per row, padded with -1). */
static int attr_ints(PyObject *spec, const char *name, Py_ssize_t count, Py_ssize_t width, int **out) {
    PyObject *v = PyObject_GetAttrString(spec, name);
    if (!v) return -1;
    int rc = -1;
    PyObject *seq = PySequence_Fast(v, name);
    if (!seq) goto done;
    if (PySequence_Fast_GET_SIZE(seq) != count) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, expected %zd", name, PySequence_Fast_GET_SIZE(seq), count);
        goto done;
    }
    *out = PyMem_RawMalloc((size_t)(count * (width ? width : 1)) * sizeof(int) + 1);
    if (!*out) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        if (!width) {
            long y = PyLong_AsLong(x);
            if (y == -1 && PyErr_Occurred()) goto done;
            (*out)[i] = (int)y;
            continue;
        }
        for (Py_ssize_t j = 0; j < width; j++) (*out)[i * width + j] = -1;
        if (x == Py_None) continue;
        PyObject *row = PySequence_Fast(x, name);
        if (!row) goto done;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(row);
        for (Py_ssize_t j = 0; j < m && j < width; j++) {
            long y = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, j));
            if (y == -1 && PyErr_Occurred()) {
                Py_DECREF(row);
                goto done;
            }
            (*out)[i * width + j] = (int)y;
        }
        Py_DECREF(row);
    }
    rc = 0;
done:
    Py_XDECREF(seq);
    Py_DECREF(v);
    return rc;
}

static void kernel_dealloc(Kernel *k) {
    PyMem_RawFree(k->loglen);
    PyMem_RawFree(k->pow_);
    PyMem_RawFree(k->records);
    PyMem_RawFree(k->epoch_at);
    lookup_free(&k->isr_caught);
    lookup_free(&k->hw_caught);
    lookup_free(&k->truncate_to);
    lookup_free(&k->first_mismatch);
    Py_XDECREF(k->named);
    Py_XDECREF(k->fallback);
    Py_XDECREF(k->acts);
    Py_TYPE(k)->tp_free((PyObject *)k);
}

static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O:Successors", &spec)) return NULL;
    Kernel *k = (Kernel *)type->tp_alloc(type, 0); /* zeroed */
    if (!k) return NULL;
    k->vectorcall = kernel_vectorcall;
    long pow_count;
    if (attr_int(spec, "n", &k->n) || attr_int(spec, "nr_i", &k->nr_i) || attr_int(spec, "ql_i", &k->ql_i) ||
        attr_int(spec, "qi_i", &k->qi_i) || attr_int(spec, "rq_i", &k->rq_i) ||
        attr_long(spec, "max_epoch", &k->max_epoch) || attr_long(spec, "max_records", &k->max_records) ||
        attr_long(spec, "log_size", &k->log_size) || attr_long(spec, "size", &k->size) ||
        attr_long(spec, "epochs", &k->epochs) ||
        attr_long(spec, "isr_mult", &k->isr_mult) || attr_long(spec, "hw_mult", &k->hw_mult))
        goto fail;
    if (k->n < 1 || k->n > MAXN || k->log_size < 0 || k->log_size > 30 || k->size < 1 || k->max_epoch < 0 ||
        k->max_epoch > 62 || k->rq_i != FPR * k->n + 3 || k->nr_i != FPR * k->n || k->ql_i != k->nr_i + 1 ||
        k->qi_i != k->nr_i + 2) {
        PyErr_SetString(PyExc_ValueError, "Successors: the layout is not the classic layout without option fields");
        goto fail;
    }
    k->length = k->rq_i + 1;
    k->flat = k->rq_i;
    k->all_mask = (1L << k->n) - 1;
    pow_count = k->log_size + 1;
    {
        int *pw;
        /* pow is read as ints here, then widened */
        if (attr_ints(spec, "pow", pow_count, 0, &pw)) goto fail;
        k->pow_ = PyMem_RawMalloc(sizeof(long long) * (size_t)pow_count);
        if (!k->pow_) { PyMem_RawFree(pw); PyErr_NoMemory(); goto fail; }
        for (long i = 0; i < pow_count; i++) k->pow_[i] = pw[i];
        PyMem_RawFree(pw);
        if (k->pow_[k->log_size] != k->size) {
            PyErr_SetString(PyExc_ValueError, "Successors: pow[log_size] is not the number of log codes");
            goto fail;
        }
    }
    if (attr_ints(spec, "length", k->size, 0, &k->loglen) ||
        attr_ints(spec, "records", k->size, k->log_size, &k->records) ||
        attr_ints(spec, "epoch_at", k->size, k->log_size, &k->epoch_at))
        goto fail;
    for (long c = 0; c < k->size; c++) {
        if (k->loglen[c] > k->log_size) {
            PyErr_SetString(PyExc_ValueError, "Successors: a log longer than log_size");
            goto fail;
        }
    }
    if (attr_lookup(spec, "isr_caught", &k->isr_caught) || attr_lookup(spec, "hw_caught", &k->hw_caught) ||
        attr_lookup(spec, "truncate_to", &k->truncate_to) || attr_lookup(spec, "first_mismatch", &k->first_mismatch))
        goto fail;
    if (attr_obj(spec, "fallback", &k->fallback)) goto fail;
    if (k->fallback == Py_None) Py_CLEAR(k->fallback);
    if (attr_obj(spec, "named", &k->named) || attr_obj(spec, "acts", &k->acts))
        goto fail;
    if (!PyTuple_Check(k->acts)) {
        PyErr_SetString(PyExc_TypeError, "Successors: acts is not a tuple of action tables");
        goto fail;
    }
    return (PyObject *)k;
fail:
    Py_DECREF(k);
    return NULL;
}

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = KERNEL_NAME ".Successors",
    .tp_doc = "Successors(spec)(state) -> [(action, next state), ...]: the generated successors in C.",
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = kernel_new,
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Kernel, vectorcall),
};

/* The module ``name`` holding ``Successors`` and ``OutOfRange``. */
static PyObject *kernel_module(struct PyModuleDef *def) {
    if (PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(def);
    if (!m) return NULL;
    OutOfRange = PyErr_NewException(KERNEL_NAME ".OutOfRange", PyExc_ValueError, NULL);
    if (!OutOfRange || PyModule_AddObjectRef(m, "OutOfRange", OutOfRange) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Successors", (PyObject *)&KernelType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
