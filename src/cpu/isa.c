/* Run-time ISA detection (see isa.h). AVX2 needs CPUID.1:ECX OSXSAVE, AVX and
 * FMA, CPUID.7.0:EBX AVX2 and BMI2, and XCR0 bits 1-2 (SSE and YMM state).
 * AVX-512 needs CPUID.7.0:EBX F, DQ, CD, BW and VL, and XCR0 bits 1-2 and
 * 5-7 (opmask, upper ZMM halves, ZMM16-31). */
#include "cpu/isa.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define SPX__ISA_X86 1
#endif

static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static spx__isa isa_hw = SPX__ISA_SCALAR, isa_act = SPX__ISA_SCALAR;
static char isa_note_buf[96];

static const char *const isa_names[] = {"scalar", "avx2", "avx512"};

#ifdef SPX__ISA_X86
static unsigned long long read_xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static spx__isa detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return SPX__ISA_SCALAR;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx || !fma) return SPX__ISA_SCALAR;
    unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) return SPX__ISA_SCALAR;
    if (__get_cpuid_max(0, NULL) < 7) return SPX__ISA_SCALAR;
    __cpuid_count(7, 0, a, b, c, d);
    if (!((b >> 5) & 1) || !((b >> 8) & 1)) return SPX__ISA_SCALAR;
    const unsigned need512 = (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);
    if ((b & need512) == need512 && (xcr0 & 0xE6) == 0xE6) return SPX__ISA_AVX512;
    return SPX__ISA_AVX2;
}
#else
static spx__isa detect(void)
{
    return SPX__ISA_SCALAR;
}
#endif

int spx__isa_parse(const char *s)
{
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, isa_names[i]) == 0) return i;
    return -1;
}

static void isa_init(void)
{
    isa_hw = detect();
    isa_act = isa_hw;
    const char *env = getenv("SPX_ARCH");
    if (!env || !*env) return;
    int want = spx__isa_parse(env);
    if (want < 0)
        snprintf(isa_note_buf, sizeof isa_note_buf, "SPX_ARCH=%.32s not recognised", env);
    else if (want > (int)isa_hw)
        snprintf(isa_note_buf, sizeof isa_note_buf, "SPX_ARCH=%s above this CPU's %s",
                 isa_names[want], isa_names[isa_hw]);
    else
        isa_act = (spx__isa)want;
}

spx__isa spx__isa_hardware(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_hw;
}

spx__isa spx__isa_active(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_act;
}

const char *spx__isa_note(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_note_buf;
}

const char *spx__isa_name(spx__isa isa)
{
    return (int)isa >= 0 && (int)isa < 3 ? isa_names[isa] : "?";
}
