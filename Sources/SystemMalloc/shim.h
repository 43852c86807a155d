// glibc's malloc tuning (mallopt), where the C library has it: MigrationPeer's MemoryPolicy.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
