/* The device printf capture's check at every synchronising reply (server/backends/cuda/printf.py):
 * flush the C library's buffered stdout, where the driver prints kernels' output, into the pipe the
 * worker's fd 1 points at, and say how many bytes the pipe holds. One call instead of a Python-level
 * flush and a read that mostly fails with EAGAIN, which cost a few microseconds at every reply. */
#include <stdio.h>
#include <sys/ioctl.h>

/* Bytes waiting in the pipe `fd` after flushing every C stdio stream; -1 if the pipe cannot say. */
int rgpu_printf_pending(int fd) {
    fflush(NULL);
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}
