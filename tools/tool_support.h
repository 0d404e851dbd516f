/* Shared by the command-line tools: argument parsing, loading a rig from a CLI input, timing. */
#ifndef CROWD_TOOLS_TOOL_SUPPORT_H
#define CROWD_TOOLS_TOOL_SUPPORT_H

#include <stdbool.h>

#include "crowdbake/asset.h"
#include "crowdbake/bake.h"
#include "crowdbake/critters.h"
#include "crowdbake/crowd.h"
#include "crowdbake/gltf.h"
#include "crowdbake/rig.h"

/* Strict number parsing: the whole string must be a number within [min, max]. */
bool tool_parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out);
bool tool_parse_float(const char *text, float min, float max, float *out);
/* A byte count: digits only, no sign or space, refused when it does not fit 64 bits. */
bool tool_parse_u64(const char *text, uint64_t *out);
/* "x,y,z": exactly `count` (<= 16) finite numbers in [min, max], nothing else. */
bool tool_parse_floats(const char *text, uint32_t count, float min, float max, float *out);
/* "<w>x<h>" with both in [min, max] and nothing else. */
bool tool_parse_size(const char *text, uint32_t min, uint32_t max, uint32_t *width, uint32_t *height);

/* True when `a` and `b` name one file: the same text, the same existing file (device and inode, so
 * "./x", "dir/../x" and a link to x are x), or, for a file not yet made, the same name in the same
 * directory. Tools refuse an output that is their input or another of their outputs. */
bool tool_same_file(const char *a, const char *b);

/* Prints "<tool>: missing value for <flag>" and returns 2 (the bad-command-line status). */
int tool_missing_value(const char *tool, const char *flag);

/* The library's messages name the desc field a value came from ("crowd_bake_desc.fps 300 outside
 * 1..240"); a tool's user sets flags. Copies `message` into `out` (`size` bytes, truncated) with
 * every field a flag sets replaced by that flag ("--fps 300 outside 1..240") and returns `out`. */
const char *tool_flag_text(const char *message, char *out, size_t size);

/* Prints "<tool>: <message>" and a newline to stderr, the message through tool_flag_text. */
void tool_print_error(const char *tool, const char *message);

/* Flushes and closes stdout; when anything written there was lost (a full disk, `> /dev/full`, a
 * closed pipe) says so on stderr and returns a failing status (`status` if already failing, else
 * 1). Call once, last, with the status main is about to return. */
int tool_finish_stdout(const char *tool, int status);

/* Splits "a,b,c" into a NULL-terminated array of strings (one allocation: free() it). Empty items
 * are an error (returns NULL and sets *count to 0). */
char **tool_split_list(const char *text, uint32_t *count);

/* Builds the rig a tool works on: the procedural humanoid when `input` is NULL, otherwise the glTF
 * file at `input` read with `gltf` (NULL: defaults; warnings go to stderr unless it sets warn). */
crowd_result tool_load_rig(const char *input, float density, const crowd_gltf_desc *gltf, crowd_rig *rig,
                           crowd_error *error);

/* Rebuilds the rig an asset was baked from (the humanoid with its recorded density, or the glTF
 * file named in the asset unless `source_override` names another). */
crowd_result tool_load_source_rig(const crowd_asset *asset, const char *source_override, crowd_rig *rig,
                                  crowd_error *error);

/* Reads a whole file into a 16-byte aligned buffer (free() it), or NULL with the error filled. */
/* Vertex-frame sources: "critter KIND seed=N fps=F" / "KIND[:SEED]" captures a critter, anything
 * else is read as a frames dump. Fills `frames` (owned by `holder` / `dump`; free with
 * tool_frames_free). */
typedef struct tool_frames {
    crowd_critter critter;
    crowd_frames_dump dump;
    const crowd_vertex_frames *frames;
} tool_frames;
crowd_result tool_load_frames(const char *critter_spec, const char *dump_path, tool_frames *out, crowd_error *error);
void tool_frames_free(tool_frames *f);
/* True when the file at `path` starts with the frames-dump magic. */
bool tool_is_frames_dump(const char *path);

uint8_t *tool_read_file(const char *path, size_t *size, crowd_error *error);

/* Bakes the built-in humanoid with the bone texture (the tools' default asset) into memory; free()
 * the bytes. */
crowd_result tool_bake_humanoid(crowd_bake_output *out, crowd_error *error); /* crowd_bake_output_free */

double tool_now_ms(void);

/* The benchmarks' statistics: qsort's comparison of doubles, and the median of `count` values
 * (sorted in place; the mean of the middle two for an even count, 0 for none). */
int tool_compare_double(const void *a, const void *b);
double tool_median(double *values, uint32_t count);

/* Prints `text` to stdout as a JSON string literal, quotes and control characters escaped and
 * every byte that is not well-formed UTF-8 printed as \ufffd (names in assets come from glTF files,
 * dumps and callers, and may hold anything): the output is always valid JSON. */
void tool_json_string(const char *text);

/* Human-readable byte count: "7.80 MB", "338.0 KB". */
const char *tool_bytes(uint64_t bytes, char buffer[32]);

#endif
