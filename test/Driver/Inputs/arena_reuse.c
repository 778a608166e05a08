/* Allocate once, run many (docs/Compile.md, "--remat-plan-arena"): runs the
 * training step of the header given with -include for several SGD steps two
 * ways on the same inputs: the entry that allocates its own arena, and
 * <entry>_arena on one caller-provided arena, allocated once and filled with
 * a different garbage byte before every step. Every result must be the same
 * bytes after every step. Prints one line per step, exits 1 on a mismatch. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REMAT_ENTRY_ARENA
#error "the header declares no entry with a caller-provided arena"
#endif

static uint64_t lcg = 12345;

static double next_unit(void) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg >> 11) / 9007199254740992.0;
}

static void *alloc64(int64_t bytes) {
  size_t size = (size_t)((bytes + 63) / 64 * 64);
  void *p = aligned_alloc(64, size ? size : 64);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  memset(p, 0, size ? size : 64);
  return p;
}

/* Deterministic contents for inputs, parameters and state. */
static void fill(const remat_buffer_info *info, void *data) {
  for (int64_t i = 0; i < info->elements; ++i) {
    double u = next_unit();
    switch (info->dtype) {
    case REMAT_DTYPE_F32:
      ((float *)data)[i] = (float)(u - 0.5);
      break;
    case REMAT_DTYPE_F64:
      ((double *)data)[i] = u - 0.5;
      break;
    case REMAT_DTYPE_I64:
      ((int64_t *)data)[i] = (int64_t)(u * (info->int_range ? info->int_range : 2));
      break;
    case REMAT_DTYPE_I32:
      ((int32_t *)data)[i] = (int32_t)(u * (info->int_range ? info->int_range : 2));
      break;
    default:
      memset(data, 0, (size_t)info->bytes);
      return;
    }
  }
}

int main(void) {
  void *own[REMAT_NUM_BUFFERS], *reused[REMAT_NUM_BUFFERS];
  for (int b = 0; b < REMAT_NUM_BUFFERS; ++b) {
    const remat_buffer_info *info = &remat_buffers[b];
    own[b] = alloc64(info->bytes);
    reused[b] = alloc64(info->bytes);
    if (info->kind != REMAT_KIND_RESULT) {
      fill(info, own[b]);
      memcpy(reused[b], own[b], (size_t)info->bytes);
    }
  }
  uint8_t *arena = (uint8_t *)alloc64(REMAT_ARENA_BYTES);
  const int steps = 3;
  for (int s = 0; s < steps; ++s) {
    memset(arena, 0xA5 + 17 * s, (size_t)REMAT_ARENA_BYTES);
    REMAT_CALL(own);
    REMAT_CALL_ARENA(arena, reused);
    int compared = 0;
    for (int b = 0; b < REMAT_NUM_BUFFERS; ++b) {
      const remat_buffer_info *info = &remat_buffers[b];
      if (info->kind != REMAT_KIND_RESULT)
        continue;
      ++compared;
      if (memcmp(own[b], reused[b], (size_t)info->bytes) != 0) {
        printf("step %d: result %s differs\n", s, info->name);
        return 1;
      }
    }
    printf("step %d: %d results identical\n", s, compared);
    /* SGD on f32 parameters and the next state, the same on both sides. */
    for (int b = 0; b < REMAT_NUM_BUFFERS; ++b) {
      const remat_buffer_info *info = &remat_buffers[b];
      if (info->grad_of >= 0 && info->dtype == REMAT_DTYPE_F32) {
        for (int64_t i = 0; i < info->elements; ++i) {
          ((float *)own[info->grad_of])[i] -= 0.01f * ((float *)own[b])[i];
          ((float *)reused[info->grad_of])[i] -=
              0.01f * ((float *)reused[b])[i];
        }
      }
      if (info->state_of >= 0) {
        memcpy(own[info->state_of], own[b], (size_t)info->bytes);
        memcpy(reused[info->state_of], reused[b], (size_t)info->bytes);
      }
    }
  }
  printf("arena of %lld bytes allocated once for %d steps\n",
         (long long)REMAT_ARENA_BYTES, steps);
  return 0;
}
