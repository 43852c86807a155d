// glibc's extensions, where the C library has them: malloc tuning (mallopt: MigrationPeer's
// MemoryPolicy), early writeback (sync_file_range: AtomicFileWriter, FileWriter) and syncing one
// file system (syncfs: the restore's switch), the last two declared by glibc only under
// _GNU_SOURCE, which Swift's Glibc module leaves out.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/types.h>
extern int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags);
extern int syncfs(int fd);
#define SYSTEM_SYNC_FILE_RANGE_WRITE 2
#endif
