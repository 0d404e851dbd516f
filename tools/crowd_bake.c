/* crowd-bake: bake a rig (the built-in humanoid or a glTF file) into a .crowd asset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* isatty */

#include "core/error.h"
#include "crowdbake/bake.h"
#include "crowdbake/gl.h"
#include "tool_support.h"
#ifdef CROWD_BAKE_IMPOSTERS
#include "gl_context.h"
#endif

static void usage(FILE *out)
{
    fprintf(out,
            "usage: crowd-bake [input.gltf|input.glb] [options]\n"
            "       crowd-bake --critter KIND[:SEED] [options]      (--critter list names the kinds)\n"
            "       crowd-bake --frames-dump FILE [options]\n"
            "\n"
            "Bakes skinned animation into a .crowd asset. Without an input, bakes the built-in\n"
            "procedural humanoid. --critter captures a procedural critter (no skeleton) and\n"
            "--frames-dump reads captured vertex frames (docs/frames-dump.md); both bake like a rig,\n"
            "without bones (no bone mode, no sockets).\n"
            "\n"
            "  --critter KIND[:SEED]  capture a critter: one of %d kinds (blob, penguin, giraffe, centipede, ...;\n"
            "                       --critter list names them); SEED picks the look within the kind (default 1)\n"
            "  --frames-dump FILE   bake the vertex frames in FILE\n"
            "  --write-dump FILE    also write the vertex frames (of --critter or --frames-dump) as a dump\n"
            "  --out <file>         output path (default: humanoid.crowd, or <input name>.crowd)\n"
            "  --fps <n>            samples per second per clip, 1..240 (default 30)\n"
            "  --frames <n>         fixed frame count per clip, overrides --fps\n"
            "  --clips a,b,c        bake only these clips, in this order\n"
            "  --lods <n>           LOD levels including full detail, 1..%u (default 5)\n"
            "  --lod-ratios a,b,c   triangle ratio per level, first 1 (default 1,0.4,0.15,0.05,0.012)\n"
            "  --bones              also bake the bone-matrix texture (bone mode, sockets)\n"
            "  --tangents           also bake per-frame tangents\n"
            "  --tex-width <n>      animation texture width, 1..%u (default 4096; grows when needed)\n"
            "  --scale <f>          multiply every length by f, 0.0001..10000 (0.01: centimetres to metres)\n"
            "  --height <m>         scale to this standing height in metres (idle clip, else rest pose)\n"
            "  --forward <axis>     +z, -z, +x, -x or auto: the way the source faces (default auto: from\n"
            "                       the locomotion clips' foot slide, else +z); the asset faces +Z\n"
            "  --up <axis>          +y or +z: the source's up axis (default +y)\n"
            "  --ground <mode>      auto, none or an offset in metres (default auto: planted feet at y = 0)\n"
            "  --clip-role n=role   force a clip's role: locomotion, idle, action, pose, flight (repeatable)\n"
            "  --marker c=name@s    a marker `name` on clip c at s seconds from its start (repeatable;\n"
            "                       names: letters, digits, _ - .); the runtime reports crossings\n"
            "  --no-footsteps       no footstep_l / footstep_r markers on the locomotion clips\n"
            "  --max-bytes <n>      refuse bakes predicted larger (default 268435456 = 256 MB; 0 = no limit)\n"
            "  --density <f>        procedural humanoid tessellation, 0.25..4 (default 1)\n"
            "  --skin <n>           glTF: bake the character of skin n (default: the animated skinned mesh's)\n"
            "  --socket name=node   glTF: a socket named `name` at the node named `node` (repeatable)\n"
            "  --compact            8 bytes per vertex-frame: 8+8-bit normals inside the position texel\n"
            "  --fp16               half-float positions and normals (for comparison; less precise)\n"
            "  --time <n>           bake n times and report median timings (nothing is written)\n"
            "  --imposters          also render the imposter atlas through EGL (needs a GL build; rigs,\n"
            "                       critters and frames dumps alike)\n"
            "  --imposter-frames <n>     key frames per cycle, 1..64 (default 8; implies --imposters)\n"
            "  --imposter-views <n>      yaw views, 1..64 (default 32)\n"
            "  --imposter-elevations <n> elevations, 1..4 (default 3: 5, 22.5, 40 degrees)\n"
            "  --imposter-tile <n>       texels per tile side, 1..512 (default 32)\n"
            "  --imposter-lod <n>        mesh level the atlas is rendered from (default: the level before the\n"
            "                            last, the one cards replace where levels end at the card distance)\n"
            "  --imposter-angles a,b     the elevations in degrees, increasing, within +-89 (sets their count)\n"
            "  --quiet              no summary\n"
            "  --help               this text\n"
            "\n"
            "Each option once (--clip-role, --socket and --marker repeat). An output that is the input or the other\n"
            "output (--write-dump x --out x, also through another name or a link) is refused.\n",
            (int)CROWD_CRITTER_KIND_COUNT, CROWD_MAX_LODS, CROWD_MAX_TEXTURE_DIM);
}

#define MAX_CLI_MARKERS 1024u

typedef struct options {
    const char *input, *out;
    crowd_bake_desc desc;
    float density;
    char **clip_list;
    float ratios[CROWD_MAX_LODS];
    uint32_t ratio_count;
    uint32_t time_runs;
    int quiet;
    crowd_gltf_desc gltf;
    crowd_gltf_socket sockets[CROWD_MAX_SOCKETS];
    crowd_bake_clip_role roles[CROWD_MAX_CLIPS];
    crowd_bake_marker markers[MAX_CLI_MARKERS];
    const char *critter, *frames_dump, *write_dump;
    bool imposters;
    crowd_gl_imposter_desc imposter;
} options;

static bool parse_axis(const char *v, crowd_bake_forward *out)
{
    static const char *const names[] = {"auto", "+z", "-z", "+x", "-x"};
    for (int k = 0; k < 5; k++)
        if (!strcmp(v, names[k]) || (k && v[0] == names[k][1] && !v[1] && names[k][0] == '+')) {
            *out = (crowd_bake_forward)k;
            return true;
        }
    return false;
}

static int bad_flag(const char *flag, const char *value, const char *expected)
{
    if (!value)
        return tool_missing_value("crowd-bake", flag);
    fprintf(stderr, "crowd-bake: %s %s: expected %s\n", flag, value, expected);
    return 2;
}

/* True (message printed) when option `a` was given before: a second --frames-dump or --out would
 * otherwise silently win. --clip-role and --socket are lists and may repeat. */
static bool repeated_option(const char *a, const char **seen, uint32_t *seen_count, uint32_t capacity)
{
    if (a[0] != '-' || !strcmp(a, "--clip-role") || !strcmp(a, "--socket") || !strcmp(a, "--marker"))
        return false;
    for (uint32_t k = 0; k < *seen_count; k++)
        if (!strcmp(seen[k], a)) {
            fprintf(stderr, "crowd-bake: %s given twice (give each option once)\n", a);
            return true;
        }
    if (*seen_count < capacity)
        seen[(*seen_count)++] = a;
    return false;
}

/* Returns 0 on success, 1 after --help, 2 on a bad command line (message printed). */
static int parse_args(int argc, char **argv, options *o)
{
    const char *seen[64];
    uint32_t seen_count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (repeated_option(a, seen, &seen_count, 64))
            return 2;
#define TAKES_VALUE()                            \
    do {                                         \
        if (!v)                                  \
            return bad_flag(a, NULL, "a value"); \
        i++;                                     \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--out")) {
            TAKES_VALUE();
            o->out = v;
        } else if (!strcmp(a, "--fps")) {
            TAKES_VALUE();
            if (!tool_parse_float(v, 1.0f, 240.0f, &o->desc.fps))
                return bad_flag(a, v, "a number in 1..240");
        } else if (!strcmp(a, "--scale")) {
            TAKES_VALUE();
            if (!tool_parse_float(v, 1e-4f, 1e4f, &o->desc.scale))
                return bad_flag(a, v, "a number in 0.0001..10000");
        } else if (!strcmp(a, "--height")) {
            TAKES_VALUE();
            if (!tool_parse_float(v, 0.01f, 1000.0f, &o->desc.height))
                return bad_flag(a, v, "a height in metres, 0.01..1000");
        } else if (!strcmp(a, "--forward")) {
            TAKES_VALUE();
            if (!parse_axis(v, &o->desc.forward))
                return bad_flag(a, v, "+z, -z, +x, -x or auto");
        } else if (!strcmp(a, "--up")) {
            TAKES_VALUE();
            if (!strcmp(v, "+y") || !strcmp(v, "y"))
                o->desc.up = CROWD_UP_POS_Y;
            else if (!strcmp(v, "+z") || !strcmp(v, "z"))
                o->desc.up = CROWD_UP_POS_Z;
            else
                return bad_flag(a, v, "+y or +z");
        } else if (!strcmp(a, "--ground")) {
            TAKES_VALUE();
            if (!strcmp(v, "auto"))
                o->desc.ground = CROWD_GROUND_AUTO;
            else if (!strcmp(v, "none"))
                o->desc.ground = CROWD_GROUND_NONE;
            else if (tool_parse_float(v, -1e4f, 1e4f, &o->desc.ground_offset))
                o->desc.ground = CROWD_GROUND_OFFSET;
            else
                return bad_flag(a, v, "auto, none or an offset in metres (-10000..10000)");
        } else if (!strcmp(a, "--clip-role")) {
            TAKES_VALUE();
            const char *eq = strrchr(v, '=');
            crowd_clip_role role;
            if (!eq || eq == v || !crowd_clip_role_parse(eq + 1, &role) || o->desc.clip_role_count == CROWD_MAX_CLIPS)
                return bad_flag(a, v, "name=role with role locomotion, idle, action, pose or flight");
            ((char *)eq)[0] = '\0'; /* argv is ours to cut */
            o->roles[o->desc.clip_role_count++] = (crowd_bake_clip_role){v, role};
            o->desc.clip_roles = o->roles;
        } else if (!strcmp(a, "--marker")) {
            TAKES_VALUE();
            /* clip=name@seconds, split at the last '@' and the last '=' before it; what the parts
             * hold (the clip, the name, a finite time inside the clip) is the bake's to refuse */
            char *at = strrchr(v, '@'), *eq = NULL, *end = NULL;
            for (char *p = (char *)v; at && p < at; p++)
                eq = *p == '=' ? p : eq;
            if (!at || !eq || eq == v || o->desc.marker_count == MAX_CLI_MARKERS)
                return bad_flag(a, v, "clip=name@seconds (at most 1024 markers)");
            *eq = *at = '\0'; /* argv is ours to cut */
            float time = strtof(at + 1, &end);
            if (end == at + 1 || *end) {
                fprintf(stderr, "crowd-bake: --marker %s=%s@%s: the time \"%s\" is not a number of seconds\n", v,
                        eq + 1, at + 1, at + 1);
                return 2;
            }
            o->markers[o->desc.marker_count++] = (crowd_bake_marker){v, eq + 1, time};
            o->desc.markers = o->markers;
        } else if (!strcmp(a, "--no-footsteps")) {
            o->desc.footsteps = -1;
        } else if (!strcmp(a, "--max-bytes")) {
            TAKES_VALUE();
            uint64_t n = 0;
            if (!tool_parse_u64(v, &n))
                return bad_flag(a, v, "a byte count below 2^64 (0 = no limit)");
            o->desc.max_bytes = n ? n : UINT64_MAX;
        } else if (!strcmp(a, "--frames")) {
            TAKES_VALUE();
            if (!tool_parse_u32(v, 1, CROWD_MAX_FRAMES_PER_CLIP, &o->desc.frames))
                return bad_flag(a, v, "a whole number in 1..65536");
        } else if (!strcmp(a, "--clips")) {
            TAKES_VALUE();
            o->clip_list = tool_split_list(v, &o->desc.clip_name_count);
            if (!o->clip_list)
                return bad_flag(a, v, "comma-separated clip names");
            o->desc.clip_names = (const char *const *)o->clip_list;
        } else if (!strcmp(a, "--lods")) {
            TAKES_VALUE();
            if (!tool_parse_u32(v, 1, CROWD_MAX_LODS, &o->desc.lod_count))
                return bad_flag(a, v, "a whole number in 1..8");
        } else if (!strcmp(a, "--lod-ratios")) {
            TAKES_VALUE();
            uint32_t n = 0;
            char **items = tool_split_list(v, &n);
            bool ok = items && n <= CROWD_MAX_LODS;
            for (uint32_t k = 0; ok && k < n; k++)
                ok = tool_parse_float(items[k], 1e-6f, 1.0f, &o->ratios[k]);
            free(items);
            if (!ok)
                return bad_flag(a, v, "up to 8 comma-separated ratios in (0, 1]");
            o->ratio_count = n;
        } else if (!strcmp(a, "--bones")) {
            o->desc.bones = true;
        } else if (!strcmp(a, "--tangents")) {
            o->desc.tangents = true;
        } else if (!strcmp(a, "--tex-width")) {
            TAKES_VALUE();
            if (!tool_parse_u32(v, 1, CROWD_MAX_TEXTURE_DIM, &o->desc.tex_width))
                return bad_flag(a, v, "a whole number in 1..16384");
        } else if (!strcmp(a, "--density")) {
            TAKES_VALUE();
            if (!tool_parse_float(v, 0.25f, 4.0f, &o->density))
                return bad_flag(a, v, "a number in 0.25..4");
        } else if (!strcmp(a, "--skin")) {
            TAKES_VALUE();
            if (!tool_parse_u32(v, 0, UINT32_MAX, &o->gltf.skin))
                return bad_flag(a, v, "a skin index");
            o->gltf.select_skin = true;
        } else if (!strcmp(a, "--socket")) {
            TAKES_VALUE();
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1] || o->gltf.socket_count == CROWD_MAX_SOCKETS)
                return bad_flag(a, v, "name=node");
            /* the name is the text before '=': argv is ours to cut */
            ((char *)eq)[0] = '\0';
            o->sockets[o->gltf.socket_count++] = (crowd_gltf_socket){v, eq + 1};
            o->gltf.sockets = o->sockets;
        } else if (!strcmp(a, "--compact")) {
            o->desc.compact = true;
        } else if (!strcmp(a, "--fp16")) {
            o->desc.fp16 = true;
        } else if (!strcmp(a, "--time")) {
            TAKES_VALUE();
            if (!tool_parse_u32(v, 1, 1000, &o->time_runs))
                return bad_flag(a, v, "a run count in 1..1000");
        } else if (!strcmp(a, "--critter")) {
            TAKES_VALUE();
            o->critter = v;
        } else if (!strcmp(a, "--frames-dump")) {
            TAKES_VALUE();
            o->frames_dump = v;
        } else if (!strcmp(a, "--write-dump")) {
            TAKES_VALUE();
            o->write_dump = v;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--imposters")) {
            o->imposters = true;
        } else if (!strcmp(a, "--imposter-lod")) {
            TAKES_VALUE();
            uint32_t lod = 0;
            if (!tool_parse_u32(v, 0, CROWD_MAX_LODS - 1, &lod))
                return bad_flag(a, v, "a mesh level in 0..7, below --lods");
            o->imposter.lod = lod ? lod : CROWD_MAX_LOD_ZERO;
            o->imposters = true;
        } else if (!strcmp(a, "--imposter-angles")) {
            TAKES_VALUE();
            uint32_t n = 0;
            char **items = tool_split_list(v, &n);
            bool ok = items && n >= 1 && n <= CROWD_MAX_IMPOSTER_ELEVATIONS;
            for (uint32_t k = 0; ok && k < n; k++)
                ok = tool_parse_float(items[k], -89.0f, 89.0f, &o->imposter.elevation_deg[k]) &&
                     (!k || o->imposter.elevation_deg[k] > o->imposter.elevation_deg[k - 1]);
            free(items);
            if (!ok)
                return bad_flag(a, v, "1 to 4 increasing comma-separated degrees within +-89");
            o->imposter.elevations = n;
            o->imposters = true;
        } else if (!strcmp(a, "--imposter-frames") || !strcmp(a, "--imposter-views") ||
                   !strcmp(a, "--imposter-elevations") || !strcmp(a, "--imposter-tile")) {
            TAKES_VALUE();
            uint32_t *field = a[11] == 'f'   ? &o->imposter.frames
                              : a[11] == 'v' ? &o->imposter.views
                              : a[11] == 'e' ? &o->imposter.elevations
                                             : &o->imposter.tile;
            uint32_t max = a[11] == 'f'   ? CROWD_MAX_IMPOSTER_FRAMES
                           : a[11] == 'v' ? CROWD_MAX_IMPOSTER_VIEWS
                           : a[11] == 'e' ? CROWD_MAX_IMPOSTER_ELEVATIONS
                                          : CROWD_MAX_IMPOSTER_TILE;
            if (!tool_parse_u32(v, 1, max, field))
                return bad_flag(a, v, max == CROWD_MAX_IMPOSTER_TILE ? "texels in 1..512" : "a count in range");
            o->imposters = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "crowd-bake: unknown option %s (see --help)\n", a);
            return 2;
        } else if (o->input) {
            fprintf(stderr, "crowd-bake: more than one input (%s and %s)\n", o->input, a);
            return 2;
        } else {
            o->input = a;
        }
#undef TAKES_VALUE
    }
    uint32_t levels = o->desc.lod_count ? o->desc.lod_count : 5; /* bake.h: 0 = 5 */
    if (o->imposter.lod && o->imposter.lod != CROWD_MAX_LOD_ZERO && o->imposter.lod >= levels) {
        fprintf(stderr, "crowd-bake: --imposter-lod %u: the bake has levels 0..%u\n", o->imposter.lod, levels - 1);
        return 2;
    }
    if (o->critter && !strcmp(o->critter, "list"))
        return 3;
    if (o->critter || o->frames_dump) {
        crowd_critter_desc cd;
        const char *which = o->critter ? "--critter" : "--frames-dump";
        if (o->critter && o->frames_dump) {
            fprintf(stderr, "crowd-bake: --critter and --frames-dump cannot be combined (one source per bake)\n");
            return 2;
        }
        if (o->critter && !crowd_critter_parse(o->critter, &cd))
            return bad_flag("--critter", o->critter, "KIND or KIND:SEED (--critter list names the kinds)");
        if (o->input) {
            fprintf(stderr, "crowd-bake: %s and an input file (%s) cannot be combined\n", which, o->input);
            return 2;
        }
        if (o->desc.bones) {
            fprintf(stderr,
                    "crowd-bake: %s: vertex frames have no skeleton, so no bone texture, bone mode or "
                    "sockets; bake without --bones\n",
                    which);
            return 2;
        }
        if (o->density != 0.0f || o->gltf.select_skin || o->gltf.socket_count) {
            fprintf(stderr, "crowd-bake: --density, --skin and --socket do not apply to %s\n", which);
            return 2;
        }
        if (o->time_runs) {
            fprintf(stderr, "crowd-bake: --time applies to rigs (the summary of %s shows the capture and bake times)\n",
                    which);
            return 2;
        }
    } else if (o->write_dump) {
        fprintf(stderr, "crowd-bake: --write-dump needs --critter or --frames-dump (a rig has no vertex frames)\n");
        return 2;
    }
    if (o->ratio_count) {
        if (o->desc.lod_count && o->desc.lod_count != o->ratio_count) {
            fprintf(stderr, "crowd-bake: --lods %u but --lod-ratios lists %u levels\n", o->desc.lod_count,
                    o->ratio_count);
            return 2;
        }
        o->desc.lod_count = o->ratio_count;
        o->desc.lod_ratios = o->ratios;
    }
    if (o->input && o->density != 0.0f) {
        fprintf(stderr, "crowd-bake: --density applies to the procedural humanoid only\n");
        return 2;
    }
    if (!o->input && (o->gltf.select_skin || o->gltf.socket_count)) {
        fprintf(stderr, "crowd-bake: --skin and --socket apply to glTF input only\n");
        return 2;
    }
    if (!o->ratio_count && o->desc.lod_count > 5) {
        fprintf(stderr, "crowd-bake: --lods %u needs --lod-ratios (defaults exist for up to 5 levels)\n",
                o->desc.lod_count);
        return 2;
    }
    if (o->desc.compact && o->desc.fp16) {
        fprintf(stderr, "crowd-bake: --compact and --fp16 cannot be combined\n");
        return 2;
    }
    if (o->desc.height != 0.0f && o->desc.scale != 0.0f) {
        fprintf(stderr, "crowd-bake: --height and --scale cannot be combined (both set the size)\n");
        return 2;
    }
    return 0;
}

typedef struct progress_state {
    double start;
    bool terminal; /* stderr is a terminal: carriage-return lines redraw there, pile up in a file */
    bool shown;
} progress_state;

static progress_state progress_begin(void)
{
    return (progress_state){tool_now_ms(), isatty(STDERR_FILENO) != 0, false};
}

/* Shown only on a terminal, and only when a bake runs long enough for someone to wonder. */
static void on_progress(void *user, float fraction, const char *stage)
{
    progress_state *p = user;
    if (!p->terminal || tool_now_ms() - p->start < 500.0)
        return;
    fprintf(stderr, "\rbaking %3.0f%% %-24s", fraction * 100.0, stage);
    p->shown = true;
}

static void list_critters(void)
{
    printf("critter kinds (crowd-bake --critter KIND[:SEED]; each seed a new look of the kind; blob, quad\n"
           "and tube are the body plans the others are built on):\n");
    for (int k = 0; k < CROWD_CRITTER_KIND_COUNT; k++)
        printf("  %-11s %s\n", crowd_critter_kind_name((crowd_critter_kind)k),
               crowd_critter_kind_summary((crowd_critter_kind)k));
    printf("clips: idle, walk, run (loops found in the capture; walk and run strides = distance travelled)\n");
}

static char *default_output(const char *input)
{
    const char *base = input ? strrchr(input, '/') : NULL;
    base = base ? base + 1 : (input ? input : "humanoid");
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    char *out = malloc(n + 8);
    if (out)
        snprintf(out, n + 8, "%.*s.crowd", (int)n, base);
    return out;
}

static void bake_warning(void *user, const char *message)
{
    (void)user;
    char text[1024];
    fprintf(stderr, "crowd-bake: warning: %s\n", tool_flag_text(message, text, sizeof text));
}

static void silent(void *user, const char *message)
{
    (void)user, (void)message;
}

static int run_timing(const options *o)
{
    double stages[6][1000];
    for (uint32_t run = 0; run < o->time_runs; run++) {
        crowd_rig rig;
        crowd_error err;
        crowd_gltf_desc gltf = o->gltf;
        if (run) /* the first run shows the file's warnings */
            gltf.warn = silent;
        double t0 = tool_now_ms();
        if (tool_load_rig(o->input, o->density, &gltf, &rig, &err) != CROWD_OK) {
            tool_print_error("crowd-bake", err.message);
            return 1;
        }
        double t1 = tool_now_ms();
        crowd_bake_desc desc = o->desc;
        desc.rig = &rig;
        crowd_bake_output out;
        crowd_result r = crowd_bake(&desc, &out, &err);
        crowd_rig_free(&rig);
        if (r != CROWD_OK) {
            tool_print_error("crowd-bake", err.message);
            return 1;
        }
        stages[0][run] = t1 - t0;
        stages[1][run] = out.stats.ms_skin;
        stages[2][run] = out.stats.ms_encode;
        stages[3][run] = out.stats.ms_lod;
        stages[4][run] = out.stats.ms_stride + out.stats.ms_pack;
        stages[5][run] = (t1 - t0) + out.stats.ms_total;
        crowd_bake_output_free(&out);
    }
    printf("bake timing, median of %u runs (ms):\n", o->time_runs);
    printf("  %-22s %8.2f\n", o->input ? "read input" : "build humanoid", tool_median(stages[0], o->time_runs));
    printf("  %-22s %8.2f\n", "sample + skin", tool_median(stages[1], o->time_runs));
    printf("  %-22s %8.2f\n", "encode textures", tool_median(stages[2], o->time_runs));
    printf("  %-22s %8.2f\n", "LODs", tool_median(stages[3], o->time_runs));
    printf("  %-22s %8.2f\n", "strides + pack", tool_median(stages[4], o->time_runs));
    double best = stages[5][0];
    for (uint32_t i = 1; i < o->time_runs; i++)
        best = stages[5][i] < best ? stages[5][i] : best;
    printf("  %-22s %8.2f   (best %.2f)\n", "total", tool_median(stages[5], o->time_runs), best);
    return 0;
}

/* What the bake found in a clip that a user would otherwise not know: root motion, a seam it
 * blended, a one-shot's travel, a flight that brushes the ground. `rig` is NULL for frames. */
static void clip_findings(const crowd_asset *a, uint32_t c, const crowd_rig *rig, char *text, size_t size)
{
    const crowd_clip *clip = &a->clips[c];
    crowd_clip_evidence e;
    int rc = rig ? crowd_rig_find_clip(rig, clip->name) : -1;
    const crowd_rig_clip *source = rc >= 0 ? &rig->clips[rc] : NULL;
    size_t n = 0;
    text[0] = '\0';
    if (!crowd_asset_clip_evidence(a, c, &e))
        return;
    bool loops = (clip->flags & CROWD_CLIP_LOOP) != 0,
         root = source &&
                (source->root_motion[0] != 0.0 || source->root_motion[1] != 0.0 || source->root_motion[2] != 0.0);
    if (e.root_travel > 0.0f && loops)
        n += (size_t)snprintf(text + n, size - n,
                              root ? "root motion %.3f m a cycle, baked in place; "
                                   : "a bone without vertices travels %.3f m a cycle; ",
                              (double)e.root_travel);
    else if (e.root_travel > 0.0f && n < size)
        n += (size_t)snprintf(text + n, size - n, "one-shot moving the body %.3f m (played as authored); ",
                              (double)e.root_travel);
    if (source && source->seam > 0.0 && n < size)
        n += (size_t)snprintf(text + n, size - n, "seam of %.1f %% of the size blended; ", 100.0 * source->seam);
    if (crowd_clip_role_of(clip) == CROWD_ROLE_FLIGHT && e.contact_frames && n < size)
        n +=
            (size_t)snprintf(text + n, size - n, "brushes the ground in %u of %u frames; ", e.contact_frames, e.frames);
    if (n >= 2 && n < size)
        text[n - 2] = '\0'; /* the last separator */
}

static void print_summary(const crowd_asset *a, const crowd_bake_stats *s, const char *path, double read_ms,
                          const crowd_rig *rig)
{
    char b1[32], b2[32];
    printf("wrote %s (%s)\n", path, tool_bytes(s->bytes_total, b1));
    printf("  vertices %u, triangles %u, bones %u, clips %u, frames %u\n", s->vertex_count, s->triangle_count,
           s->bone_count, s->clip_count, s->frame_count);
    printf("  texture      %u x %u (%llu texels)\n", s->tex_width, s->tex_height,
           (unsigned long long)s->tex_width * s->tex_height);
    const char *pos_fmt = a->position_encoding == CROWD_POSITION_F16_BOX ? "RGBA16F" : "RGBA16UI";
    printf("    positions  %-10s %s\n", tool_bytes(s->bytes_positions, b1), pos_fmt);
    if (s->bytes_normals)
        printf("    normals    %-10s %s octahedral\n", tool_bytes(s->bytes_normals, b1),
               a->normal_encoding == CROWD_NORMAL_OCT_F16 ? "RG16F" : "RG16UI");
    else
        printf("    normals    in position w (8+8-bit octahedral)\n");
    if (s->bytes_tangents)
        printf("    tangents   %-10s RG16UI octahedral\n", tool_bytes(s->bytes_tangents, b1));
    if (s->bytes_bones)
        printf("    bones      %-10s RGBA32F, %u x %u\n", tool_bytes(s->bytes_bones, b1), s->bone_tex_width,
               s->bone_tex_height);
    printf("    mesh+meta  %s\n", tool_bytes(s->bytes_other, b2));
    printf("    per vertex %u bytes/vertex/frame\n", s->bytes_per_vertex_frame);
    printf("  lods        ");
    for (uint32_t l = 0; l < s->lod_count; l++)
        printf("%s%u", l ? " / " : " ", s->lod_triangles[l]);
    printf(" triangles (one shared texture)\n");
    const crowd_bake_notes *n = &s->notes;
    static const char *const axes[] = {"+Z", "-Z", "+X", "-X", "+Y"};
    static const char *const how[] = {"default: glTF's convention", "detected", "given"};
    printf("  placement    faces %s in the source (%s%s), up %s; turned to face +Z\n", axes[n->forward],
           how[n->forward_decision], n->forward_decision == CROWD_DECIDED_DETECTED ? " from the foot slide" : "",
           axes[n->up]);
    printf("               height %.3f m (%s), unit scale %g%s\n", (double)n->height,
           s->clip_count && n->height > 0 ? "standing: idle clip or rest pose" : "rest pose", (double)a->unit_scale,
           n->scale_decision == CROWD_DECIDED_GIVEN      ? " (given)"
           : n->scale_decision == CROWD_DECIDED_DETECTED ? " (detected: the file's unit, see the note above)"
                                                         : " (source read as metres)");
    printf("               ground offset %+.4f m (%s)", (double)n->ground_offset,
           n->ground_decision == CROWD_DECIDED_DETECTED ? "auto"
           : n->ground_decision == CROWD_DECIDED_GIVEN  ? "given"
                                                        : "none");
    if (n->hover > 0.0f)
        printf(", flier: hovers %.3f m above the ground", (double)n->hover);
    printf("\n");
    if (n->bone_mode != CROWD_BONE_MODE_NONE) {
        static const char *const modes[] = {"none", "exact", "approximate", "unavailable"};
        printf("               bone mode %s (worst error %.3f mm)\n", modes[n->bone_mode], (double)n->bone_error * 1e3);
    }
    printf("  predicted    %s before baking\n", tool_bytes(s->predicted_bytes, b1));
    printf("  clips        %-16s %-10s %6s %8s %10s %9s\n", "name", "role", "frames", "seconds", "stride m",
           "speed m/s");
    for (uint32_t c = 0; c < a->clip_count; c++) {
        const crowd_clip *clip = &a->clips[c];
        char found[256];
        clip_findings(a, c, rig, found, sizeof found);
        printf("               %-16s %-10s %6u %8.3f %10.4f %9.3f%s%s\n", clip->name,
               crowd_clip_role_name(crowd_clip_role_of(clip)), clip->frame_count, (double)clip->duration,
               (double)clip->stride, clip->duration > 0 ? (double)(clip->stride / clip->duration) : 0.0,
               found[0] ? "  " : "", found);
    }
    printf("  elapsed      %.1f ms (%s %.1f, skin %.1f, encode %.1f, lods %.1f, strides %.1f, pack %.1f)\n",
           read_ms + s->ms_total,
           a->source_kind == CROWD_SOURCE_GLTF     ? "read"
           : a->source_kind == CROWD_SOURCE_FRAMES ? "capture/read"
                                                   : "build",
           read_ms, s->ms_skin, s->ms_encode, s->ms_lod, s->ms_stride, s->ms_pack);
}

/* 0 when each output names a file of its own that is no input; else 2 (message printed): the later
 * write would silently replace the earlier output, or the file that was just read. */
static int check_outputs(const options *o, const char *out)
{
    const char *inputs[2] = {o->input, o->frames_dump}, *outputs[2] = {out, o->write_dump};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            if (outputs[k] && inputs[j] && tool_same_file(outputs[k], inputs[j])) {
                fprintf(stderr, "crowd-bake: %s %s is the input %s (refusing to overwrite it; name another %s)\n",
                        k ? "--write-dump" : "the output", outputs[k], inputs[j], k ? "dump" : "with --out");
                return 2;
            }
    if (o->write_dump && tool_same_file(out, o->write_dump)) {
        fprintf(stderr,
                "crowd-bake: --write-dump %s and the output %s are one file (the bake would replace the dump)\n",
                o->write_dump, out);
        return 2;
    }
    return 0;
}

static crowd_result add_imposters(const options *o, crowd_bake_output *out, crowd_asset *asset, crowd_error *err);

/* The frames path: a critter capture or a dump, optionally written out as a dump, then baked. */
static int bake_frames(options *o)
{
    char name[96];
    crowd_critter_desc cd = {0};
    if (o->critter) {
        crowd_critter_parse(o->critter, &cd); /* checked while parsing */
        snprintf(name, sizeof name, "%s-%u", crowd_critter_kind_name(cd.kind), cd.seed);
    }
    char *out_path = o->out ? NULL : default_output(o->critter ? name : o->frames_dump);
    const char *path = o->out ? o->out : out_path;
    if (path && check_outputs(o, path)) {
        free(out_path);
        return 2;
    }
    tool_frames src = {0};
    crowd_bake_output out = {0};
    crowd_asset asset = {0};
    crowd_error err = {0};
    uint8_t *dump = NULL;
    size_t dump_size = 0;
    progress_state prog = progress_begin();
    int status = 1;
    double t0 = tool_now_ms();
    if (!path || tool_load_frames(o->critter, o->frames_dump, &src, &err) != CROWD_OK)
        goto done;
    double read_ms = tool_now_ms() - t0;
    crowd_vertex_frames frames = *src.frames;
    if (o->frames_dump) /* crowd-verify re-reads the dump from here */
        frames.source_name = o->frames_dump;
    if (o->write_dump && (crowd_frames_dump_write(src.frames, &dump, &dump_size, &err) != CROWD_OK ||
                          crowd_write_file_atomic(o->write_dump, dump, dump_size, &err) != CROWD_OK))
        goto done;
    o->desc.warn = bake_warning;
    o->desc.progress = on_progress;
    o->desc.progress_user = &prog;
    if (crowd_bake_frames(&frames, &o->desc, &out, &err) != CROWD_OK)
        goto done;
    if (prog.shown)
        fprintf(stderr, "\r%-40s\r", "");
    if (crowd_asset_load_memory(&asset, out.bytes, out.size, &err) != CROWD_OK ||
        (o->imposters && add_imposters(o, &out, &asset, &err) != CROWD_OK) ||
        crowd_write_file_atomic(path, out.bytes, out.size, &err) != CROWD_OK)
        goto done;
    if (!o->quiet) {
        if (o->write_dump) {
            char b[32];
            printf("wrote %s (%s frames dump)\n", o->write_dump, tool_bytes(dump_size, b));
        }
        print_summary(&asset, &out.stats, path, read_ms, NULL);
        if (o->critter) {
            printf("  capture      %s, %u vertices, %u parts, height %.3f m\n", src.critter.source_name,
                   frames.vertex_count, frames.part_count, (double)src.critter.height);
            printf("  loops        %-8s %6s %6s %11s %11s %11s %10s\n", "clip", "start", "frames", "seam max mm",
                   "seam rms mm", "step rms mm", "travel m");
            for (uint32_t c = 0; c < frames.clip_count && c < 3; c++) {
                const crowd_critter_clip_stats *cs = &src.critter.clip_stats[c];
                printf("               %-8s %6u %6u %11.3f %11.3f %11.3f %10.4f\n", frames.clips[c].name,
                       cs->loop_start, cs->loop_frames, cs->seam_max_m * 1e3, cs->seam_rms_m * 1e3,
                       cs->step_rms_m * 1e3, cs->travelled_m);
            }
        }
    }
    status = 0;
done:
    if (status)
        tool_print_error("crowd-bake", path ? err.message : "out of memory");
    crowd_frames_dump_bytes_free(dump);
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    tool_frames_free(&src);
    free(out_path);
    return status;
}

/* Renders the atlas with the baked asset, adds it to the image and re-validates the result. */
static crowd_result add_imposters(const options *o, crowd_bake_output *out, crowd_asset *asset, crowd_error *err)
{
#ifdef CROWD_BAKE_IMPOSTERS
    double t0 = tool_now_ms();
    tool_gl gl = {0};
    crowd_imposters atlas = {0};
    uint8_t *bytes = NULL;
    size_t size = 0;
    crowd_result r = tool_gl_create_samples(&gl, 16, 16, false, 0, err);
    if (r == CROWD_OK)
        r = crowd_gl_bake_imposters(asset, &o->imposter, false, &atlas, err);
    tool_gl_destroy(&gl);
    if (r == CROWD_OK)
        r = crowd_bake_add_imposters(out->bytes, out->size, &atlas, &bytes, &size, err);
    crowd_gl_imposters_free(&atlas);
    if (r != CROWD_OK)
        return r;
    crowd_asset_free(asset);
    crowd_bake_stats stats = out->stats; /* they describe the mesh bake */
    crowd_bake_output_free(out);
    out->stats = stats;
    out->bytes = bytes;
    out->size = size;
    r = crowd_asset_load_memory(asset, out->bytes, out->size, err);
    if (r == CROWD_OK && !o->quiet)
        printf("imposters: %u frames x %u views x %u elevations, %u-texel tiles, atlas %u x %u (%.2f MB), %.0f ms\n",
               asset->imposters.frames, asset->imposters.views, asset->imposters.elevations, asset->imposters.tile,
               asset->imposters.albedo.width, asset->imposters.albedo.height,
               (double)(asset->imposters.albedo.bytes + asset->imposters.normals.bytes) / 1e6, tool_now_ms() - t0);
    return r;
#else
    (void)o, (void)out, (void)asset;
    return crowd_fail(err, CROWD_ERROR_UNSUPPORTED, "--imposters: this build has no GL (CROWD_GL=OFF)");
#endif
}

int main(int argc, char **argv)
{
    options o = {0};
    int status = parse_args(argc, argv, &o);
    if (status == 3) {
        list_critters();
        free(o.clip_list);
        return tool_finish_stdout("crowd-bake", 0);
    }
    if (status) {
        free(o.clip_list);
        return status == 1 ? tool_finish_stdout("crowd-bake", 0) : 2;
    }
    if (o.critter || o.frames_dump) {
        status = bake_frames(&o);
        free(o.clip_list);
        return tool_finish_stdout("crowd-bake", status);
    }
    if (o.time_runs) {
        status = run_timing(&o);
        free(o.clip_list);
        return tool_finish_stdout("crowd-bake", status);
    }

    char *out_path = o.out ? NULL : default_output(o.input);
    const char *path = o.out ? o.out : out_path;
    if (path && check_outputs(&o, path)) {
        free(out_path);
        free(o.clip_list);
        return 2;
    }
    crowd_rig rig = {0};
    crowd_bake_output out = {0};
    crowd_asset asset = {0};
    crowd_error err = {0};
    progress_state prog = progress_begin();
    status = 1;

    double t0 = tool_now_ms();
    if (!path || tool_load_rig(o.input, o.density, &o.gltf, &rig, &err) != CROWD_OK)
        goto done;
    double read_ms = tool_now_ms() - t0;
    o.desc.rig = &rig;
    o.desc.warn = bake_warning;
    o.desc.progress = on_progress;
    o.desc.progress_user = &prog;
    if (crowd_bake(&o.desc, &out, &err) != CROWD_OK)
        goto done;
    if (prog.shown)
        fprintf(stderr, "\r%-40s\r", "");
    /* Read our own output back through the validating loader before it reaches disk. */
    if (crowd_asset_load_memory(&asset, out.bytes, out.size, &err) != CROWD_OK)
        goto done;
    if (o.imposters && add_imposters(&o, &out, &asset, &err) != CROWD_OK)
        goto done;
    if (crowd_write_file_atomic(path, out.bytes, out.size, &err) != CROWD_OK)
        goto done;
    if (!o.quiet)
        print_summary(&asset, &out.stats, path, read_ms, &rig);
    status = 0;
done:
    if (status)
        tool_print_error("crowd-bake", path ? err.message : "out of memory");
    crowd_asset_free(&asset);
    crowd_bake_output_free(&out);
    crowd_rig_free(&rig);
    free(out_path);
    free(o.clip_list);
    return tool_finish_stdout("crowd-bake", status);
}
