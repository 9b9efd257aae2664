/* Format parameters: "key=value,key=value" strings from plan options and the CLI. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "plan/format.h"

spx_status spx__params_each(const char *params,
                            spx_status (*fn)(void *ctx, const char *key, const char *value),
                            void *ctx)
{
    char key[64], value[192];
    const char *p = params;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return spx__error(SPX_ERR_BAD_PARAM, "parameter '%.*s' is not key=value", (int)len, p);
        size_t kl = (size_t)(eq - p), vl = len - kl - 1;
        if (kl == 0 || kl >= sizeof key || vl >= sizeof value)
            return spx__error(SPX_ERR_BAD_PARAM, "parameter '%.*s' is malformed", (int)len, p);
        memcpy(key, p, kl);
        key[kl] = '\0';
        memcpy(value, eq + 1, vl);
        value[vl] = '\0';
        spx_status st = fn(ctx, key, value);
        if (st != SPX_OK) return st;
        p = end ? end + 1 : NULL;
    }
    return SPX_OK;
}

spx_status spx__param_int(const char *key, const char *value, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end != '\0')
        return spx__error(SPX_ERR_BAD_PARAM, "parameter %s=%s is not an integer", key, value);
    if (v < lo || v > hi)
        return spx__error(SPX_ERR_BAD_PARAM, "parameter %s=%ld is outside %ld..%ld", key, v, lo,
                          hi);
    *out = v;
    return SPX_OK;
}

spx_status spx__param_on_off(const char *key, const char *value, int *on)
{
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
        return spx__error(SPX_ERR_BAD_PARAM, "parameter %s=%s is not on or off", key, value);
    *on = strcmp(value, "on") == 0;
    return SPX_OK;
}

spx_status spx__param_xtype(const char *key, const char *value, int *half)
{
    if (strcmp(value, "float") != 0 && strcmp(value, "half") != 0)
        return spx__error(SPX_ERR_BAD_PARAM, "parameter %s=%s is not float or half", key, value);
    *half = strcmp(value, "half") == 0;
    return SPX_OK;
}

spx_status spx__check_xtype(int half, spx_type precision, const char *who)
{
    if (half && precision != SPX_F16)
        return spx__error(SPX_ERR_BAD_PARAM, "%s: xtype=half needs precision f16", who);
    return SPX_OK;
}

static spx_status refuse_param(void *ctx, const char *key, const char *value)
{
    (void)value;
    return spx__error(SPX_ERR_BAD_PARAM, "%s takes no parameters (got '%s')", (const char *)ctx,
                      key);
}

spx_status spx__params_none(const char *params, const char *format)
{
    return spx__params_each(params, refuse_param, (void *)format);
}
