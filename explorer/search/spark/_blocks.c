/* The map side of a distributed level in C: a task's frontier block expanded, its successors
 * deduplicated, fingerprinted and split by destination partition, without a Python loop per state
 * (explorer/search/spark/fast.py wraps it and says when it applies; spark/steps.py `expand` and
 * `split` are the same job in Python, and the reference for what this computes).
 *
 * expand(fps, packed, unpack, successors, pack, table, keys, parents, actions, empty)
 *     -> (generated, expanded)
 *   fps: the bytes of len(packed) 16-byte fingerprints; packed: a list of packed states. For each
 *   state in order, out = successors(unpack(packed[i])); each successor (action, state) is keyed
 *   k = pack(state); a key new to `table` (a dict {key: slot}) gets the next slot: k appended to
 *   `keys`, the parent's fingerprint to `parents` and the successor's index (uint32, little
 *   endian) to `actions` (both bytearrays, 16 and 4 bytes a slot); a key already there keeps the
 *   smaller (parent fingerprint, index). A state without successors has its position appended to
 *   `empty` (deadlocks). So the table holds spark/steps.py `expand`'s candidates, exactly.
 *
 * split(keys, parents, actions, partitions, key_of) -> {partition: (fps, parents, actions, keys)}
 *   Each slot's fingerprint: for an int key, BLAKE2b-128 of its marshal (version 2) bytes with the
 *   personalization "isrcheck-packed" (spark/level.py `packed_key`, byte for byte), else
 *   key_of(key); its partition the fingerprint's low 64 bits (big endian) modulo `partitions`, as
 *   spark/steps.py `split` computes it; slots in their order within a partition.
 *
 * first(packed, unpack, predicates, wanted) -> [position or -1 for each predicate]
 *   Every predicate on every state unpack(packed[i]), in order (spark/steps.py `check_new`): for
 *   each, the first position where its truth differs from `wanted` (a list of bools: True for an
 *   invariant, which fails where it is false; False for a `sometimes`, reached where it is true).
 *
 * best(fps, parents, actions) -> bytes
 *   The merge's order of candidates (spark/steps.py `best_first`): the int64 positions of the
 *   candidates sorted by (fingerprint, parent, action index, position), as the bytes of an int64
 *   array. A radix sort of the fingerprints' high 8 bytes, then each run of equal high halves (a
 *   fingerprint that came from several expansion tasks: a few candidates) in the full order by
 *   insertion; NumPy's version sorts every repeated fingerprint on three string keys.
 *
 * fresh(fps, parents, actions, seen) -> bytes
 *   A full level's merge with the visited set (spark/steps.py `merge`): the candidates in best's
 *   order, the first of each fingerprint kept, and those the sorted visited array `seen` holds
 *   dropped by walking both in order (one sequential read of `seen` instead of a binary search
 *   per candidate); the int64 positions of the rest, in fingerprint order.
 *
 * insert(seen, add, out) -> None
 *   The sorted disjoint fingerprint arrays `seen` and `add` merged into the writable buffer `out`
 *   (as long as both): runs of `seen` copied whole between the new ones (np.insert's result).
 *
 * pick(blocks, positions) -> list or None
 *   The states at `positions` (int64, over the concatenated candidates) of the candidates' marshal
 *   blocks (spark/blocks.py `encode_states`: b"M" + marshal version 2 of a list): one pass over
 *   the bytes finds each picked value's bytes, which are copied, in the order asked, into one
 *   marshal list that marshal decodes; the other candidates' states (two in three at the widest
 *   levels) never become objects. None for a pickled block, a value written with a code `skip` does not
 *   know, or a position given twice: the caller decodes the blocks whole.
 *
 * digest(data) -> bytes: that BLAKE2b-128 of any bytes (for the tests against hashlib).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <marshal.h>
#include <stdint.h>
#include <string.h>

#define FP 16

/* -- BLAKE2b (RFC 7693), 16-byte digests, no key, a fixed personalization ---------------------- */

static const uint64_t IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

/* The chaining value after the parameter block (digest 16, fanout 1, depth 1, the person). */
static uint64_t H0[8];

static uint64_t
load64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t
rotr(uint64_t x, int n)
{
    return (x >> n) | (x << (64 - n));
}

#define G(a, b, c, d, x, y)          \
    do {                             \
        a = a + b + (x);             \
        d = rotr(d ^ a, 32);         \
        c = c + d;                   \
        b = rotr(b ^ c, 24);         \
        a = a + b + (y);             \
        d = rotr(d ^ a, 16);         \
        c = c + d;                   \
        b = rotr(b ^ c, 63);         \
    } while (0)

static void
compress(uint64_t h[8], const unsigned char block[128], uint64_t t, int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++)
        m[i] = load64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = IV[i];
    }
    v[12] ^= t; /* messages here are far below 2**64 bytes: the high counter word stays 0 */
    if (last)
        v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = SIGMA[r];
        G(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        G(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        G(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        G(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        G(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        G(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        G(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        G(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++)
        h[i] ^= v[i] ^ v[i + 8];
}

static void
blake2b16(const unsigned char *data, Py_ssize_t len, unsigned char out[FP])
{
    uint64_t h[8];
    unsigned char block[128];
    memcpy(h, H0, sizeof h);
    uint64_t t = 0;
    while (len > 128) {
        t += 128;
        compress(h, data, t, 0);
        data += 128;
        len -= 128;
    }
    memset(block, 0, sizeof block);
    memcpy(block, data, (size_t)len);
    compress(h, block, t + (uint64_t)len, 1);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 8; j++)
            out[8 * i + j] = (unsigned char)(h[i] >> (8 * j));
}

static void
init_h0(void)
{
    unsigned char param[64];
    static const char person[] = "isrcheck-packed"; /* 15 bytes, zero-padded to 16 as hashlib does */
    memset(param, 0, sizeof param);
    param[0] = FP; /* digest length */
    param[2] = 1;  /* fanout */
    param[3] = 1;  /* depth */
    memcpy(param + 48, person, sizeof person - 1);
    for (int i = 0; i < 8; i++)
        H0[i] = IV[i] ^ load64(param + 8 * i);
}

/* The fingerprint of an int key: BLAKE2b-128 of marshal.dumps(key, 2). 0, or -1 with an exception. */
static int
int_fingerprint(PyObject *key, unsigned char out[FP])
{
    PyObject *data = PyMarshal_WriteObjectToString(key, 2);
    if (data == NULL)
        return -1;
    blake2b16((const unsigned char *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), out);
    Py_DECREF(data);
    return 0;
}

/* -- expand ------------------------------------------------------------------------------------ */

static int
append_bytes(PyObject *array, const void *data, Py_ssize_t size)
{
    Py_ssize_t at = PyByteArray_GET_SIZE(array);
    if (PyByteArray_Resize(array, at + size) < 0)
        return -1;
    memcpy(PyByteArray_AS_STRING(array) + at, data, (size_t)size);
    return 0;
}

/* An action index as the uint32 little endian that spark/steps.py `split` writes. */
static void
put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* One successor (action, state) at index `index` of the state whose fingerprint is `fp`. */
static int
add_successor(PyObject *item, const unsigned char *fp, uint32_t index, PyObject *pack, PyObject *table,
              PyObject *keys, PyObject *parents, PyObject *actions)
{
    /* The pair is held while pack runs: it may run Python code, and `item` is borrowed. */
    PyObject *pair;
    if (PyTuple_CheckExact(item) && PyTuple_GET_SIZE(item) == 2) {
        pair = item;
        Py_INCREF(pair);
    } else {
        pair = PySequence_Tuple(item);
        if (pair == NULL)
            return -1;
        if (PyTuple_GET_SIZE(pair) != 2) {
            Py_DECREF(pair);
            PyErr_SetString(PyExc_ValueError, "successors must give (action, state) pairs");
            return -1;
        }
    }
    PyObject *key = PyObject_CallOneArg(pack, PyTuple_GET_ITEM(pair, 1));
    Py_DECREF(pair);
    if (key == NULL)
        return -1;
    PyObject *slot = PyDict_GetItemWithError(table, key);
    if (slot != NULL) {
        Py_ssize_t s = PyLong_AsSsize_t(slot);
        Py_DECREF(key);
        if (s == -1 && PyErr_Occurred())
            return -1;
        unsigned char *old = (unsigned char *)PyByteArray_AS_STRING(parents) + s * FP;
        unsigned char *old_index = (unsigned char *)PyByteArray_AS_STRING(actions) + s * 4;
        uint32_t was = (uint32_t)old_index[0] | (uint32_t)old_index[1] << 8 | (uint32_t)old_index[2] << 16
                       | (uint32_t)old_index[3] << 24;
        int c = memcmp(fp, old, FP);
        if (c < 0 || (c == 0 && index < was)) {
            memcpy(old, fp, FP);
            put32(old_index, index);
        }
        return 0;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    }
    unsigned char le[4];
    put32(le, index);
    slot = PyLong_FromSsize_t(PyList_GET_SIZE(keys));
    int failed = slot == NULL || PyDict_SetItem(table, key, slot) < 0 || PyList_Append(keys, key) < 0
                 || append_bytes(parents, fp, FP) < 0 || append_bytes(actions, le, 4) < 0;
    Py_XDECREF(slot);
    Py_DECREF(key);
    return failed ? -1 : 0;
}

static PyObject *
expand(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "expand takes 10 arguments");
        return NULL;
    }
    PyObject *fps = args[0], *packed = args[1], *unpack = args[2], *successors = args[3], *pack = args[4];
    PyObject *table = args[5], *keys = args[6], *parents = args[7], *actions = args[8], *empty = args[9];
    if (!PyBytes_Check(fps) || !PyList_Check(packed) || !PyDict_Check(table) || !PyList_Check(keys)
        || !PyByteArray_Check(parents) || !PyByteArray_Check(actions) || !PyList_Check(empty)) {
        PyErr_SetString(PyExc_TypeError, "expand: bad arguments");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(packed);
    if (PyBytes_GET_SIZE(fps) != n * FP) {
        PyErr_SetString(PyExc_ValueError, "expand: fps must hold 16 bytes a state");
        return NULL;
    }
    /* `packed` is the caller's list, and the model may run Python code: hold what is read from it. */
    Py_INCREF(fps);
    Py_INCREF(packed);
    long long generated = 0, expanded = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *fp = (const unsigned char *)PyBytes_AS_STRING(fps) + i * FP;
        PyObject *item = PyList_GET_ITEM(packed, i);
        Py_INCREF(item);
        PyObject *state = PyObject_CallOneArg(unpack, item);
        Py_DECREF(item);
        if (state == NULL)
            goto fail;
        PyObject *got = PyObject_CallOneArg(successors, state);
        Py_DECREF(state);
        if (got == NULL)
            goto fail;
        PyObject *out = PySequence_Fast(got, "successors must return an iterable of (action, state) pairs");
        Py_DECREF(got);
        if (out == NULL)
            goto fail;
        Py_ssize_t size = PySequence_Fast_GET_SIZE(out);
        expanded++;
        generated += size;
        for (Py_ssize_t j = 0; j < size; j++) {
            if (add_successor(PySequence_Fast_GET_ITEM(out, j), fp, (uint32_t)j, pack, table, keys, parents,
                              actions) < 0) {
                Py_DECREF(out);
                goto fail;
            }
        }
        Py_DECREF(out);
        if (size == 0) {
            PyObject *at = PyLong_FromSsize_t(i);
            if (at == NULL || PyList_Append(empty, at) < 0) {
                Py_XDECREF(at);
                goto fail;
            }
            Py_DECREF(at);
        }
    }
    Py_DECREF(fps);
    Py_DECREF(packed);
    return Py_BuildValue("(LL)", generated, expanded);
fail:
    Py_DECREF(fps);
    Py_DECREF(packed);
    return NULL;
}

/* -- split ------------------------------------------------------------------------------------- */

static PyObject *
split(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "split takes 5 arguments");
        return NULL;
    }
    PyObject *keys = args[0], *parents = args[1], *actions = args[2], *key_of = args[4];
    Py_ssize_t partitions = PyLong_AsSsize_t(args[3]);
    if (partitions == -1 && PyErr_Occurred())
        return NULL;
    if (!PyList_Check(keys) || !PyByteArray_Check(parents) || !PyByteArray_Check(actions) || partitions < 1) {
        PyErr_SetString(PyExc_TypeError, "split: bad arguments");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(keys);
    if (PyByteArray_GET_SIZE(parents) != n * FP || PyByteArray_GET_SIZE(actions) != n * 4) {
        PyErr_SetString(PyExc_ValueError, "split: parents and actions must hold 16 and 4 bytes a key");
        return NULL;
    }
    unsigned char *fps = PyMem_Malloc((size_t)(n ? n : 1) * FP);
    Py_ssize_t *dest = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n ? n : 1));
    Py_ssize_t *count = PyMem_Calloc((size_t)partitions, sizeof(Py_ssize_t));
    Py_ssize_t *fill = PyMem_Calloc((size_t)partitions, sizeof(Py_ssize_t));
    PyObject **lists = PyMem_Calloc((size_t)partitions, sizeof(PyObject *));
    PyObject **out_fps = PyMem_Calloc((size_t)partitions, sizeof(PyObject *));
    PyObject **out_par = PyMem_Calloc((size_t)partitions, sizeof(PyObject *));
    PyObject **out_act = PyMem_Calloc((size_t)partitions, sizeof(PyObject *));
    PyObject *result = NULL;
    if (!fps || !dest || !count || !fill || !lists || !out_fps || !out_par || !out_act) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        unsigned char *fp = fps + i * FP;
        if (PyLong_CheckExact(key)) {
            if (int_fingerprint(key, fp) < 0)
                goto done;
        } else {
            PyObject *got = PyObject_CallOneArg(key_of, key);
            if (got == NULL)
                goto done;
            if (!PyBytes_Check(got) || PyBytes_GET_SIZE(got) != FP) {
                Py_DECREF(got);
                PyErr_SetString(PyExc_TypeError, "split: key_of must return 16 bytes");
                goto done;
            }
            memcpy(fp, PyBytes_AS_STRING(got), FP);
            Py_DECREF(got);
        }
        uint64_t low = 0;
        for (int b = 8; b < FP; b++)
            low = (low << 8) | fp[b];
        dest[i] = (Py_ssize_t)(low % (uint64_t)partitions);
        count[dest[i]]++;
    }
    for (Py_ssize_t j = 0; j < partitions; j++) {
        if (count[j] == 0)
            continue;
        lists[j] = PyList_New(count[j]);
        out_fps[j] = PyBytes_FromStringAndSize(NULL, count[j] * FP);
        out_par[j] = PyBytes_FromStringAndSize(NULL, count[j] * FP);
        out_act[j] = PyBytes_FromStringAndSize(NULL, count[j] * 4);
        if (!lists[j] || !out_fps[j] || !out_par[j] || !out_act[j])
            goto done;
    }
    const char *par = PyByteArray_AS_STRING(parents), *act = PyByteArray_AS_STRING(actions);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t j = dest[i], at = fill[j]++;
        memcpy(PyBytes_AS_STRING(out_fps[j]) + at * FP, fps + i * FP, FP);
        memcpy(PyBytes_AS_STRING(out_par[j]) + at * FP, par + i * FP, FP);
        memcpy(PyBytes_AS_STRING(out_act[j]) + at * 4, act + i * 4, 4);
        PyObject *key = PyList_GET_ITEM(keys, i);
        Py_INCREF(key);
        PyList_SET_ITEM(lists[j], at, key);
    }
    result = PyDict_New();
    if (result == NULL)
        goto done;
    for (Py_ssize_t j = 0; j < partitions; j++) {
        if (count[j] == 0)
            continue;
        PyObject *index = PyLong_FromSsize_t(j);
        PyObject *value = index ? PyTuple_Pack(4, out_fps[j], out_par[j], out_act[j], lists[j]) : NULL;
        int failed = value == NULL || PyDict_SetItem(result, index, value) < 0;
        Py_XDECREF(index);
        Py_XDECREF(value);
        if (failed) {
            Py_CLEAR(result);
            goto done;
        }
    }
done:
    for (Py_ssize_t j = 0; lists && j < partitions; j++) {
        Py_XDECREF(lists[j]);
        Py_XDECREF(out_fps[j]);
        Py_XDECREF(out_par[j]);
        Py_XDECREF(out_act[j]);
    }
    PyMem_Free(fps);
    PyMem_Free(dest);
    PyMem_Free(count);
    PyMem_Free(fill);
    PyMem_Free(lists);
    PyMem_Free(out_fps);
    PyMem_Free(out_par);
    PyMem_Free(out_act);
    return result;
}

/* -- first ------------------------------------------------------------------------------------- */

static PyObject *
first(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "first takes 4 arguments");
        return NULL;
    }
    PyObject *packed = args[0], *unpack = args[1], *predicates = args[2], *wanted = args[3];
    if (!PyList_Check(packed) || !PyList_Check(predicates) || !PyList_Check(wanted)
        || PyList_GET_SIZE(predicates) != PyList_GET_SIZE(wanted)) {
        PyErr_SetString(PyExc_TypeError, "first: bad arguments");
        return NULL;
    }
    Py_ssize_t k = PyList_GET_SIZE(predicates), n = PyList_GET_SIZE(packed);
    Py_ssize_t *found = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(k ? k : 1));
    int *want = PyMem_Malloc(sizeof(int) * (size_t)(k ? k : 1));
    PyObject *result = NULL;
    if (found == NULL || want == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t p = 0; p < k; p++) {
        found[p] = -1;
        want[p] = PyObject_IsTrue(PyList_GET_ITEM(wanted, p));
        if (want[p] < 0)
            goto done;
    }
    /* The lists are the caller's, and predicates may run Python code: hold them. */
    Py_INCREF(packed);
    Py_INCREF(predicates);
    int failed = 0;
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        PyObject *item = PyList_GET_ITEM(packed, i);
        Py_INCREF(item);
        PyObject *state = PyObject_CallOneArg(unpack, item);
        Py_DECREF(item);
        if (state == NULL) {
            failed = 1;
            break;
        }
        for (Py_ssize_t p = 0; p < k; p++) {
            PyObject *fn = PyList_GET_ITEM(predicates, p);
            Py_INCREF(fn);
            PyObject *got = PyObject_CallOneArg(fn, state);
            Py_DECREF(fn);
            int truth = got == NULL ? -1 : PyObject_IsTrue(got);
            Py_XDECREF(got);
            if (truth < 0) {
                failed = 1;
                break;
            }
            if (found[p] < 0 && truth != want[p])
                found[p] = i;
        }
        Py_DECREF(state);
    }
    Py_DECREF(packed);
    Py_DECREF(predicates);
    if (failed)
        goto done;
    result = PyList_New(k);
    for (Py_ssize_t p = 0; result != NULL && p < k; p++) {
        PyObject *at = PyLong_FromSsize_t(found[p]);
        if (at == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, p, at);
    }
done:
    PyMem_Free(found);
    PyMem_Free(want);
    return result;
}

/* -- best ------------------------------------------------------------------------------------- */

/* A stable LSD radix sort of k[0..n) carrying the positions i[0..n) (k1 and i1: scratch of the
 * same size); returns where the sorted positions are (i or i1). */
static int64_t *
radix(uint64_t *k, int64_t *i, uint64_t *k1, int64_t *i1, Py_ssize_t n, Py_ssize_t (*counts)[256])
{
    for (Py_ssize_t j = 0; j < n; j++)
        for (int p = 0; p < 8; p++)
            counts[p][(k[j] >> (8 * p)) & 0xff]++;
    for (int p = 0; p < 8; p++) {
        if (n == 0 || counts[p][(k[0] >> (8 * p)) & 0xff] == n)
            continue; /* every key has this byte: the pass would not move anything */
        Py_ssize_t at = 0;
        for (int b = 0; b < 256; b++) {
            Py_ssize_t c = counts[p][b];
            counts[p][b] = at;
            at += c;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            Py_ssize_t to = counts[p][(k[j] >> (8 * p)) & 0xff]++;
            k1[to] = k[j];
            i1[to] = i[j];
        }
        uint64_t *kt = k;
        k = k1;
        k1 = kt;
        int64_t *it = i;
        i = i1;
        i1 = it;
    }
    return i;
}

/* The buffers and scratch of a sort of n keys; 0, or -1 with MemoryError. */
typedef struct {
    uint64_t *k0, *k1;
    int64_t *i0, *i1;
    Py_ssize_t (*counts)[256];
} Scratch;

static int
scratch_new(Scratch *s, Py_ssize_t n)
{
    size_t size = (size_t)(n ? n : 1);
    s->k0 = PyMem_Malloc(size * 8);
    s->k1 = PyMem_Malloc(size * 8);
    s->i0 = PyMem_Malloc(size * 8);
    s->i1 = PyMem_Malloc(size * 8);
    s->counts = PyMem_Calloc(8, sizeof *s->counts);
    if (!s->k0 || !s->k1 || !s->i0 || !s->i1 || !s->counts) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++)
        s->i0[j] = j;
    return 0;
}

static void
scratch_free(Scratch *s)
{
    PyMem_Free(s->k0);
    PyMem_Free(s->k1);
    PyMem_Free(s->i0);
    PyMem_Free(s->i1);
    PyMem_Free(s->counts);
}

/* Candidate a before candidate b: by fingerprint, parent, action index, then position. */
static int
before(const unsigned char *fps, const unsigned char *parents, const unsigned char *actions, int64_t a, int64_t b)
{
    int c = memcmp(fps + a * FP, fps + b * FP, FP);
    if (c == 0)
        c = memcmp(parents + a * FP, parents + b * FP, FP);
    if (c == 0) {
        const unsigned char *x = actions + a * 4, *y = actions + b * 4;
        uint32_t u = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
        uint32_t v = (uint32_t)y[0] | (uint32_t)y[1] << 8 | (uint32_t)y[2] << 16 | (uint32_t)y[3] << 24;
        c = (u > v) - (u < v);
    }
    return c < 0 || (c == 0 && a < b);
}

/* qsort's view of `before` for a long run (fingerprints sharing their high halves, which random
 * 128-bit fingerprints do with probability 2**-64 a pair): the GIL is held throughout, so the
 * buffers can be in statics. */
static const unsigned char *q_fps, *q_parents, *q_actions;

static int
by_candidate(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return before(q_fps, q_parents, q_actions, x, y) ? -1 : (x == y ? 0 : 1);
}

/* The high 8 bytes of a 16-byte fingerprint as an integer (big endian): in the fingerprints' order. */
static inline uint64_t
high(const unsigned char *fp)
{
    uint64_t hi = 0;
    for (int b = 0; b < 8; b++)
        hi = (hi << 8) | fp[b];
    return hi;
}

/* The n candidates' positions in (fingerprint, parent, action, position) order, in one of s's
 * buffers; *keys: their high halves, sorted alongside. */
static int64_t *
order_candidates(const unsigned char *fps, const unsigned char *parents, const unsigned char *actions,
                 Py_ssize_t n, Scratch *s, uint64_t **keys_out)
{
    for (Py_ssize_t j = 0; j < n; j++)
        s->k0[j] = high(fps + j * FP);
    int64_t *sorted = radix(s->k0, s->i0, s->k1, s->i1, n, s->counts);
    uint64_t *keys = sorted == s->i0 ? s->k0 : s->k1; /* the keys sorted alongside */
    /* Runs of equal high halves (a fingerprint from several tasks, each task's own distinct):
       a few candidates each, put in the full order by insertion. */
    for (Py_ssize_t start = 0; start < n;) {
        Py_ssize_t end = start + 1;
        while (end < n && keys[end] == keys[start])
            end++;
        if (end - start > 32) {
            q_fps = fps;
            q_parents = parents;
            q_actions = actions;
            qsort(sorted + start, (size_t)(end - start), sizeof(int64_t), by_candidate);
            start = end;
            continue;
        }
        for (Py_ssize_t j = start + 1; j < end; j++) {
            int64_t x = sorted[j];
            Py_ssize_t m = j;
            while (m > start && before(fps, parents, actions, x, sorted[m - 1])) {
                sorted[m] = sorted[m - 1];
                m--;
            }
            sorted[m] = x;
        }
        start = end;
    }
    *keys_out = keys;
    return sorted;
}

/* The three candidate buffers of best and fresh (fingerprints, parents, actions), checked; the
 * count, or -1 with an exception (the views are then released). */
static Py_ssize_t
candidate_views(PyObject *const *args, Py_buffer v[3], const char *name)
{
    int got = 0;
    for (; got < 3; got++)
        if (PyObject_GetBuffer(args[got], &v[got], PyBUF_C_CONTIGUOUS) < 0)
            goto fail;
    Py_ssize_t n = v[0].len / FP;
    if (v[0].len != n * FP || v[1].len != n * FP || v[2].len != n * 4) {
        PyErr_Format(PyExc_ValueError, "%s: 16-byte fingerprints and parents, 4-byte actions, as many", name);
        goto fail;
    }
    return n;
fail:
    for (int j = 0; j < got; j++)
        PyBuffer_Release(&v[j]);
    return -1;
}

static PyObject *
best(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "best takes 3 arguments");
        return NULL;
    }
    Py_buffer v[3];
    Py_ssize_t n = candidate_views(args, v, "best");
    if (n < 0)
        return NULL;
    PyObject *result = NULL;
    Scratch s = {0};
    if (scratch_new(&s, n) == 0) {
        uint64_t *keys;
        int64_t *sorted = order_candidates(v[0].buf, v[1].buf, v[2].buf, n, &s, &keys);
        result = PyBytes_FromStringAndSize((const char *)sorted, n * 8);
    }
    scratch_free(&s);
    for (int j = 0; j < 3; j++)
        PyBuffer_Release(&v[j]);
    return result;
}

/* -- fresh and insert: the merge with the visited set, one sequential walk each ---------------- */

/* a before b, two 16-byte fingerprints (ha, hb: their high halves) */
static inline int
fp_less(uint64_t ha, const unsigned char *a, uint64_t hb, const unsigned char *b)
{
    return ha < hb || (ha == hb && memcmp(a + 8, b + 8, 8) < 0);
}

static PyObject *
fresh(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "fresh takes 4 arguments");
        return NULL;
    }
    Py_buffer v[3], seen_view;
    Py_ssize_t n = candidate_views(args, v, "fresh");
    if (n < 0)
        return NULL;
    PyObject *result = NULL;
    Scratch s = {0};
    if (PyObject_GetBuffer(args[3], &seen_view, PyBUF_C_CONTIGUOUS) < 0)
        goto release;
    Py_ssize_t m = seen_view.len / FP;
    if (seen_view.len != m * FP) {
        PyErr_SetString(PyExc_ValueError, "fresh: the visited set must be 16-byte fingerprints");
        goto done;
    }
    if (scratch_new(&s, n) < 0)
        goto done;
    const unsigned char *fps = v[0].buf, *seen = seen_view.buf;
    uint64_t *keys;
    int64_t *sorted = order_candidates(fps, v[1].buf, v[2].buf, n, &s, &keys);
    int64_t *out = sorted == s.i0 ? s.i1 : s.i0; /* the other buffer: free now */
    Py_ssize_t count = 0, at = 0;
    uint64_t at_hi = m ? high(seen) : 0;
    const unsigned char *last = NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
        const unsigned char *f = fps + sorted[j] * FP;
        uint64_t hi = keys[j];
        /* a fingerprint's first candidate is its best; the others follow it */
        if (last != NULL && keys[j - 1] == hi && memcmp(last + 8, f + 8, 8) == 0)
            continue;
        last = f;
        while (at < m && fp_less(at_hi, seen + at * FP, hi, f)) {
            at++;
            if (at < m)
                at_hi = high(seen + at * FP);
        }
        if (at < m && at_hi == hi && memcmp(seen + at * FP + 8, f + 8, 8) == 0)
            continue; /* visited */
        out[count++] = sorted[j];
    }
    result = PyBytes_FromStringAndSize((const char *)out, count * 8);
done:
    scratch_free(&s);
    PyBuffer_Release(&seen_view);
release:
    for (int j = 0; j < 3; j++)
        PyBuffer_Release(&v[j]);
    return result;
}

static PyObject *
insert(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "insert takes 3 arguments");
        return NULL;
    }
    Py_buffer seen_view, add_view, out_view;
    if (PyObject_GetBuffer(args[0], &seen_view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &add_view, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&seen_view);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &out_view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&seen_view);
        PyBuffer_Release(&add_view);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t m = seen_view.len / FP, k = add_view.len / FP;
    if (seen_view.len != m * FP || add_view.len != k * FP || out_view.len != (m + k) * FP) {
        PyErr_SetString(PyExc_ValueError,
                        "insert: 16-byte fingerprints, and an output as long as both arrays together");
        goto done;
    }
    const unsigned char *seen = seen_view.buf, *add = add_view.buf;
    unsigned char *out = out_view.buf;
    Py_ssize_t at = 0;
    uint64_t at_hi = m ? high(seen) : 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        const unsigned char *a = add + j * FP;
        uint64_t hi = high(a);
        Py_ssize_t from = at;
        while (at < m && fp_less(at_hi, seen + at * FP, hi, a)) {
            at++;
            if (at < m)
                at_hi = high(seen + at * FP);
        }
        memcpy(out, seen + from * FP, (size_t)(at - from) * FP);
        out += (at - from) * FP;
        memcpy(out, a, FP);
        out += FP;
    }
    memcpy(out, seen + at * FP, (size_t)(m - at) * FP);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&seen_view);
    PyBuffer_Release(&add_view);
    PyBuffer_Release(&out_view);
    return result;
}

/* -- pick: the states of a few candidates, decoded from the candidates' marshal blocks --------- */

static int32_t
get32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The end of the marshal (version 2) value at p, or NULL where it is not one of the codes a
 * packed state's value is written with (ints, tuples, None, booleans, floats, strings) or runs
 * past end: the caller then decodes the whole block with marshal instead. */
static const unsigned char *
skip(const unsigned char *p, const unsigned char *end, int depth)
{
    if (p >= end || depth > 64)
        return NULL;
    int32_t n;
    switch (*p) {
    case 'N': case 'T': case 'F':
        return p + 1;
    case 'i':
        return p + 5 <= end ? p + 5 : NULL;
    case 'g':
        return p + 9 <= end ? p + 9 : NULL;
    case 'l':
        if (p + 5 > end)
            return NULL;
        n = get32(p + 1);
        if (n < -(1 << 28) || n > (1 << 28))
            return NULL;
        p += 5 + 2 * (Py_ssize_t)(n < 0 ? -n : n);
        return p <= end ? p : NULL;
    case 'u': case 's': case 't':
        if (p + 5 > end)
            return NULL;
        n = get32(p + 1);
        if (n < 0 || n > end - p - 5)
            return NULL;
        return p + 5 + n;
    case '(':
        if (p + 5 > end)
            return NULL;
        n = get32(p + 1);
        if (n < 0)
            return NULL;
        p += 5;
        for (int32_t j = 0; j < n && p != NULL; j++)
            p = skip(p, end, depth + 1);
        return p;
    default:
        return NULL;
    }
}

static PyObject *
pick(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "pick takes a list of blocks and the positions");
        return NULL;
    }
    PyObject *blocks = args[0], *result = NULL;
    Py_buffer want;
    if (PyObject_GetBuffer(args[1], &want, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_ssize_t k = want.len / 8, nb = PyList_GET_SIZE(blocks), total = 0, size = 5;
    const int64_t *index = want.buf;
    int32_t *slot = NULL; /* per candidate, its place among the picked, or -1 */
    const unsigned char **from = NULL; /* per picked state, where its bytes start */
    Py_ssize_t *length = NULL;         /* and how many */
    for (Py_ssize_t b = 0; b < nb; b++) {
        PyObject *blk = PyList_GET_ITEM(blocks, b);
        if (!PyBytes_Check(blk))
            goto fallback; /* a view or a bytearray: marshal reads those itself */
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(blk);
        if (PyBytes_GET_SIZE(blk) < 6 || p[0] != 'M' || p[1] != '[' || get32(p + 2) < 0)
            goto fallback; /* pickled, or not a list */
        total += get32(p + 2);
    }
    if (k > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "pick: too many positions");
        goto done;
    }
    slot = PyMem_Malloc((size_t)(total ? total : 1) * sizeof *slot);
    from = PyMem_Malloc((size_t)(k ? k : 1) * sizeof *from);
    length = PyMem_Malloc((size_t)(k ? k : 1) * sizeof *length);
    if (slot == NULL || from == NULL || length == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memset(slot, 0xff, (size_t)total * sizeof *slot);
    for (Py_ssize_t j = 0; j < k; j++) {
        if (index[j] < 0 || index[j] >= total) {
            PyErr_SetString(PyExc_IndexError, "pick: a position past the candidates");
            goto done;
        }
        if (slot[index[j]] >= 0)
            goto fallback; /* a position given twice (never by the merge): marshal's whole decoding */
        slot[index[j]] = (int32_t)j;
    }
    /* one pass over the blocks in order: where each picked value's bytes are */
    Py_ssize_t at = 0;
    for (Py_ssize_t b = 0; b < nb; b++) {
        PyObject *blk = PyList_GET_ITEM(blocks, b);
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(blk);
        const unsigned char *end = p + PyBytes_GET_SIZE(blk);
        int32_t n = get32(p + 2);
        p += 6;
        for (int32_t j = 0; j < n; j++, at++) {
            const unsigned char *next = skip(p, end, 0);
            if (next == NULL)
                goto fallback;
            if (slot[at] >= 0) {
                from[slot[at]] = p;
                length[slot[at]] = next - p;
                size += next - p;
            }
            p = next;
        }
        if (p != end)
            goto fallback;
    }
    /* the picked values' bytes, in the order asked, as one marshal list: decoded by marshal itself */
    unsigned char *list = PyMem_Malloc((size_t)size);
    if (list == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    list[0] = '[';
    put32(list + 1, (uint32_t)k);
    unsigned char *to = list + 5;
    for (Py_ssize_t j = 0; j < k; j++) {
        memcpy(to, from[j], (size_t)length[j]);
        to += length[j];
    }
    result = PyMarshal_ReadObjectFromString((const char *)list, size);
    PyMem_Free(list);
    goto done;
fallback:
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(slot);
    PyMem_Free(from);
    PyMem_Free(length);
    PyBuffer_Release(&want);
    return result;
}

static PyObject *
digest(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    unsigned char out[FP];
    blake2b16(view.buf, view.len, out);
    PyBuffer_Release(&view);
    return PyBytes_FromStringAndSize((const char *)out, FP);
}

static PyMethodDef methods[] = {
    {"expand", (PyCFunction)(void (*)(void))expand, METH_FASTCALL,
     "A frontier block's successors, deduplicated (explorer/search/spark/fast.py)."},
    {"split", (PyCFunction)(void (*)(void))split, METH_FASTCALL,
     "Candidates fingerprinted and split by destination partition (explorer/search/spark/fast.py)."},
    {"first", (PyCFunction)(void (*)(void))first, METH_FASTCALL,
     "Where each property first differs from what it should be (explorer/search/spark/fast.py)."},
    {"best", (PyCFunction)(void (*)(void))best, METH_FASTCALL,
     "Candidates in (fingerprint, parent, action, position) order (explorer/search/spark/fast.py)."},
    {"fresh", (PyCFunction)(void (*)(void))fresh, METH_FASTCALL,
     "The best candidate of each fingerprint the visited set lacks (explorer/search/spark/fast.py)."},
    {"insert", (PyCFunction)(void (*)(void))insert, METH_FASTCALL,
     "Two sorted arrays of fingerprints merged into a third (explorer/search/spark/fast.py)."},
    {"pick", (PyCFunction)(void (*)(void))pick, METH_FASTCALL,
     "The states of some candidates, decoded from their marshal blocks (explorer/search/spark/fast.py)."},
    {"digest", digest, METH_O, "BLAKE2b-128 with the packed states' personalization."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_blocks", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__blocks(void)
{
    init_h0();
    return PyModule_Create(&module);
}
