// glibc's extensions, where the C library has them: malloc tuning (mallopt: MigrationPeer's
// MemoryPolicy) and early writeback (sync_file_range: FileSystem.writeAtomically), which Swift's
// Glibc module leaves out (it is declared only under _GNU_SOURCE).
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/types.h>
extern int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags);
#define SYSTEM_SYNC_FILE_RANGE_WRITE 2
#endif
