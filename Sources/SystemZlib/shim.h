// The system zlib, for its CRC-32 (ZIPFoundation's Swift fallback on Linux is a tenth of its speed).
#include <zlib.h>
