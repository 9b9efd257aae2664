/* spx formats: the format registry as a table, and which devices can run. */
#include <string.h>

#include "cli.h"

static const char usage[] =
    "Usage: spx formats\n\n"
    "List the registered formats with the operations, devices and precisions\n"
    "each has kernels for, then whether each device is available in this build\n"
    "and on this machine (cuda: compiled in and a GPU seen).\n";

static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};
static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};
static const char *const operations[] = {"spmv", "spgemm", "spmm", "sddmm"};

/* Names of the set bits, space separated: "cpu cuda", "f64 f32". */
static void device_list(unsigned mask, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++)
        if (mask & (unsigned)devices[k])
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "",
                     cli_device_name(devices[k]));
}

static void operation_list(unsigned mask, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof operations / sizeof operations[0]; k++)
        if (mask & (1u << k))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "",
                     operations[k]);
}

static void precision_list(unsigned mask, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (mask & (1u << types[k]))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "",
                     cli_precision_name(types[k]));
}

int spx_cmd_formats(int argc, char **argv)
{
    const cli_opt opts[] = {{NULL, NULL, NULL}};
    const cli_command cmd = {"formats", usage, opts, 0, 0};
    int rc = cli_parse(&cmd, argc, argv, NULL);
    if (rc != CLI_PARSED) return rc;
    printf("%-16s %-16s %-10s %s\n", "format", "operations", "devices", "precisions");
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        char obuf[32], dbuf[32], pbuf[32];
        if (spx_format_get(i, &f) != SPX_OK) continue;
        operation_list(f.operations, obuf, sizeof obuf);
        device_list(f.devices, dbuf, sizeof dbuf);
        precision_list(f.precisions, pbuf, sizeof pbuf);
        printf("%-16s %-16s %-10s %s\n", f.name, obuf, dbuf, pbuf);
    }
    printf("\n");
    for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++)
        printf("device %-5s %s\n", cli_device_name(devices[k]),
               spx_device_available(devices[k]) ? "available" : "not available");
    return CLI_OK;
}
