/* Run-time CPU instruction-set detection, done once per process (cpuid and
 * xgetbv: the CPU must have the instructions and the OS must save their
 * register state). The environment variable SPX_ARCH=scalar|avx2|avx512 lowers
 * the choice for testing; a request above what the CPU has falls back to what
 * it has, and spx__isa_note() says so. This is SpX's one piece of global
 * state: written once under pthread_once, read-only afterwards.
 *
 * Kernels compiled for an ISA live in files named *_avx2.c / *_avx512.c and
 * may only be called when spx__isa_active() (or a lower choice made from it)
 * is at least that ISA. */
#ifndef SPX_CPU_ISA_H
#define SPX_CPU_ISA_H

typedef enum spx__isa {
    SPX__ISA_SCALAR = 0, /* portable C */
    SPX__ISA_AVX2 = 1,   /* AVX2 + FMA + BMI2, OS saves YMM state */
    SPX__ISA_AVX512 = 2  /* AVX-512 F/CD/BW/DQ/VL, OS saves opmask and ZMM state */
} spx__isa;

/* What this CPU and OS support. */
spx__isa spx__isa_hardware(void);
/* What kernels may use: the hardware ISA, lowered by SPX_ARCH when set. */
spx__isa spx__isa_active(void);
/* "" or why the active ISA differs from SPX_ARCH ("SPX_ARCH=avx512 above
 * this CPU's avx2", "SPX_ARCH=foo not recognised"). */
const char *spx__isa_note(void);
/* "scalar", "avx2" or "avx512". */
const char *spx__isa_name(spx__isa isa);
/* The ISA named by s, or -1 when s names none. */
int spx__isa_parse(const char *s);

#endif
