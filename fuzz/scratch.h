/* What the fuzz targets share (fuzz/scratch.c). */
#ifndef FUZZ_SCRATCH_H
#define FUZZ_SCRATCH_H

/* Removes a scratch journal and what writers left beside it (path.*). */
void	scratch_remove(const char *path);

#endif /* FUZZ_SCRATCH_H */
