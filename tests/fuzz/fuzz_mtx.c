/* libFuzzer harness: the Matrix Market reader on plain text. The input is
 * the file; it is read with several threads and with one (spx_fuzz_read_mtx).
 * The fuzz build splits entry sections of more than 64 bytes between threads. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spx_fuzz_read_mtx(spx_fuzz_file("input.mtx", data, size));
    return 0;
}
