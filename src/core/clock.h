/* Internal: the one wall clock of the libraries, for the timings their stats report. */
#ifndef CROWD_CORE_CLOCK_H
#define CROWD_CORE_CLOCK_H

/* Milliseconds since an arbitrary origin. C11's timespec_get (clock_gettime is POSIX); only stats
 * read it, so a clock step is harmless. */
double crowd_clock_ms(void);

#endif
