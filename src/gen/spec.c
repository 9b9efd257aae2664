/* spx_generate: split "name:key=value,..." into keys, dispatch to the named
 * generator, and the typed key getters the generators read their keys with.
 * Numbers: plain integers, 1e6 style, and k/M/G suffixes (x 1e3, 1e6, 1e9). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gen/gen.h"

/* Split the writable copy s (after the ':') into the keys of a. */
static spx_status split_keys(char *s, spx__gen_args *a)
{
    while (s && *s) {
        char *next = strchr(s, ',');
        if (next) *next++ = '\0';
        if (*s == '\0') return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': empty key", a->gen);
        if (a->count == SPX__GEN_MAX_KEYS)
            return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': more than %d keys", a->gen,
                              SPX__GEN_MAX_KEYS);
        char *eq = strchr(s, '=');
        const char *key = "n", *value = s;
        if (eq) {
            *eq = '\0';
            key = s;
            value = eq + 1;
        }
        for (int k = 0; k < a->count; k++)
            if (strcmp(a->kv[k].key, key) == 0)
                return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' given twice",
                                  a->gen, key);
        a->kv[a->count].key = key;
        a->kv[a->count].value = value;
        a->kv[a->count].used = 0;
        a->count++;
        s = next;
    }
    return SPX_OK;
}

/* The value of key (marked used), or NULL when absent. */
static const char *find_key(spx__gen_args *a, const char *key)
{
    for (int k = 0; k < a->count; k++) {
        if (strcmp(a->kv[k].key, key) == 0) {
            a->kv[k].used = 1;
            return a->kv[k].value;
        }
    }
    return NULL;
}

static double suffix_scale(char c)
{
    switch (c) {
    case 'k': case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    default: return 0.0;
    }
}

/* Parse a real with an optional k/M/G suffix; 0 when s is not a number. */
static int parse_real(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v)) return 0;
    if (*end != '\0') {
        double m = suffix_scale(*end);
        if (m == 0.0 || end[1] != '\0') return 0;
        v *= m;
    }
    *out = v;
    return 1;
}

/* Parse an integer exactly (digits, with a suffix) or through a real that is integral. */
static int parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end != s && errno == 0 && (*end == '\0' || (suffix_scale(*end) > 0 && !end[1]))) {
        long long m = *end ? (long long)suffix_scale(*end) : 1;
        if (v > INT64_MAX / m || v < INT64_MIN / m) return 0;
        *out = v * m;
        return 1;
    }
    double d;
    if (!parse_real(s, &d) || d != floor(d) || fabs(d) >= 0x1.0p63) return 0;
    *out = (int64_t)d;
    return 1;
}

spx_status spx__gen_int(spx__gen_args *a, const char *key, int64_t def, int64_t lo,
                        int64_t hi, int64_t *out)
{
    const char *s = find_key(a, key);
    if (!s) {
        if (def == SPX__GEN_REQUIRED)
            return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' is required",
                              a->gen, key);
        *out = def;
        return SPX_OK;
    }
    int64_t v;
    if (!parse_int(s, &v))
        return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' = '%s' is not an integer",
                          a->gen, key, s);
    if (v < lo || v > hi)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "generator '%s': key '%s' = %lld out of range [%lld, %lld]", a->gen,
                          key, (long long)v, (long long)lo, (long long)hi);
    *out = v;
    return SPX_OK;
}

spx_status spx__gen_real(spx__gen_args *a, const char *key, double def, double lo,
                         double hi, double *out)
{
    const char *s = find_key(a, key);
    if (!s) {
        if (isnan(def))
            return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' is required",
                              a->gen, key);
        *out = def;
        return SPX_OK;
    }
    double v;
    if (!parse_real(s, &v))
        return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' = '%s' is not a number",
                          a->gen, key, s);
    if (!(v >= lo && v <= hi))
        return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' = %g out of range [%g, %g]",
                          a->gen, key, v, lo, hi);
    *out = v;
    return SPX_OK;
}

spx_status spx__gen_choice(spx__gen_args *a, const char *key, const char *const *choices,
                           int def, int *out)
{
    const char *s = find_key(a, key);
    if (!s) {
        *out = def;
        return SPX_OK;
    }
    for (int k = 0; choices[k]; k++) {
        if (strcmp(s, choices[k]) == 0) {
            *out = k;
            return SPX_OK;
        }
    }
    return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' = '%s' is not one of the choices (first: '%s')",
                      a->gen, key, s, choices[0]);
}

spx_status spx__gen_string(spx__gen_args *a, const char *key, int required, const char **out)
{
    *out = find_key(a, key);
    if (!*out && required)
        return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key '%s' is required", a->gen,
                          key);
    return SPX_OK;
}

spx_status spx__gen_args_done(const spx__gen_args *a)
{
    for (int k = 0; k < a->count; k++)
        if (!a->kv[k].used)
            return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': unknown key '%s'", a->gen,
                              a->kv[k].key);
    return SPX_OK;
}

static spx_status lap2d5(spx__gen_args *a, spx_matrix **A) { return spx__gen_lap(a, 2, 5, A); }
static spx_status lap2d9(spx__gen_args *a, spx_matrix **A) { return spx__gen_lap(a, 2, 9, A); }
static spx_status lap3d7(spx__gen_args *a, spx_matrix **A) { return spx__gen_lap(a, 3, 7, A); }
static spx_status lap3d27(spx__gen_args *a, spx_matrix **A) { return spx__gen_lap(a, 3, 27, A); }

static const struct {
    const char *name;
    spx_status (*make)(spx__gen_args *a, spx_matrix **A);
} generators[] = {
    {"lap2d5", lap2d5},           {"lap2d9", lap2d9},       {"lap3d7", lap3d7},
    {"lap3d27", lap3d27},         {"rmat", spx__gen_rmat},  {"random", spx__gen_random},
    {"banded", spx__gen_banded},  {"powerlaw", spx__gen_powerlaw},
    {"circuit", spx__gen_circuit}, {"scale", spx__gen_scale},
};

spx_status spx_generate(const char *spec, spx_matrix **A)
{
    spx_status st = SPX_OK;
    char *copy = NULL;
    spx__gen_args args = {0};
    if (!spec || !A) return spx__error(SPX_ERR_INVALID_ARG, "spx_generate: NULL %s", spec ? "A" : "spec");
    *A = NULL;
    size_t len = strlen(spec);
    SPX_TRY(spx__alloc((void **)&copy, len + 1, 1, "generator spec"));
    memcpy(copy, spec, len + 1);
    char *colon = strchr(copy, ':');
    if (colon) *colon = '\0';
    args.gen = copy;
    size_t g = 0, ngen = sizeof generators / sizeof generators[0];
    while (g < ngen && strcmp(generators[g].name, copy) != 0) g++;
    if (g == ngen) {
        st = spx__error(SPX_ERR_INVALID_ARG, "spx_generate: unknown generator '%s' in '%s'", copy, spec);
        goto cleanup;
    }
    SPX_TRY(split_keys(colon ? colon + 1 : NULL, &args));
    SPX_TRY(generators[g].make(&args, A));
    spx__clear_error();
cleanup:
    spx__free(copy);
    return st;
}
