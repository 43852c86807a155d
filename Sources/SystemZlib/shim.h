// The system zlib: the zip's CRC-32 (ZIPFoundation's Swift fallback on Linux is a tenth of its speed) and inflate for deflated entries.
#include <zlib.h>
