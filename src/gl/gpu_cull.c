/* The GPU-driven layer: partitions, indirect commands, skip key, late stats (see gpu_cull.h). */
#include "gl/gpu_cull.h"
#include "gl/shaders.h"

#ifndef __EMSCRIPTEN__
#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define COMMAND_BYTES (5u * sizeof(uint32_t))

crowd_result crowd_gpu_compute_program(GLuint *program, const char *name, const char *source, crowd_error *error)
{
    *program = 0;
    const char *sources[3] = {"#version 430 core\n", crowd_glsl_record_glsl, source}; /* the record decode */
    GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, 3, sources, NULL);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[600] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        glDeleteShader(shader);
        return crowd_fail(error, CROWD_ERROR_GL, "%s compute shader does not compile: %s", name, log);
    }
    GLuint id = glCreateProgram();
    glAttachShader(id, shader);
    glLinkProgram(id);
    glDeleteShader(shader);
    glGetProgramiv(id, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[600] = "";
        glGetProgramInfoLog(id, sizeof log, NULL, log);
        glDeleteProgram(id);
        return crowd_fail(error, CROWD_ERROR_GL, "%s compute program does not link: %s", name, log);
    }
    *program = id;
    return CROWD_OK;
}

static GLuint storage(size_t bytes, const void *data, GLenum usage)
{
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, data, usage);
    return b;
}

crowd_result crowd_gpu_layer_create(crowd_gpu_layer *g, uint32_t partitions, uint32_t capacity, uint32_t state_items,
                                    crowd_error *error)
{
    memset(g, 0, sizeof *g);
    if (!partitions || partitions > CROWD_GPU_MAX_PARTITIONS || !capacity)
        return crowd_fail(error, CROWD_ERROR_ARGUMENT, "GPU layer: %u partitions of %u (1..%u partitions)", partitions,
                          capacity, CROWD_GPU_MAX_PARTITIONS);
    g->partition_count = partitions;
    g->partition_capacity = capacity;
    g->state_items = state_items ? state_items : 1;
    for (uint32_t p = 0; p < CROWD_GPU_MAX_PARTITIONS; p++)
        g->template[5 * p + 4] = p * capacity; /* baseInstance: the partition's first id */
    g->ids = storage((size_t)partitions * capacity * sizeof(uint32_t), NULL, GL_DYNAMIC_COPY);
    g->commands = storage(sizeof g->template, g->template, GL_DYNAMIC_COPY);
    g->template_commands = storage(sizeof g->template, g->template, GL_DYNAMIC_DRAW);
    g->state = storage((size_t)g->state_items * sizeof(uint32_t), NULL, GL_DYNAMIC_COPY);
    uint32_t zero = 0;
    glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    for (int i = 0; i < CROWD_GPU_RING; i++) {
        glGenBuffers(1, &g->ring[i]);
        glBindBuffer(GL_COPY_WRITE_BUFFER, g->ring[i]);
        glBufferData(GL_COPY_WRITE_BUFFER, sizeof g->template + 4 * CROWD_GPU_EXTRA_WORDS, NULL, GL_STREAM_READ);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    return CROWD_OK;
}

void crowd_gpu_layer_destroy(crowd_gpu_layer *g)
{
    GLuint buffers[4] = {g->ids, g->commands, g->template_commands, g->state};
    glDeleteBuffers(4, buffers);
    glDeleteBuffers(CROWD_GPU_RING, g->ring);
    for (int i = 0; i < CROWD_GPU_RING; i++)
        if (g->fence[i])
            glDeleteSync(g->fence[i]);
    memset(g, 0, sizeof *g);
}

void crowd_gpu_layer_set_command(crowd_gpu_layer *g, uint32_t p, uint32_t count, uint32_t first_index,
                                 int32_t base_vertex)
{
    if (p >= CROWD_GPU_MAX_PARTITIONS)
        return;
    g->template[5 * p] = count;
    g->template[5 * p + 1] = 0;
    g->template[5 * p + 2] = first_index;
    memcpy(&g->template[5 * p + 3], &base_vertex, sizeof base_vertex);
    glBindBuffer(GL_COPY_WRITE_BUFFER, g->template_commands);
    glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)(p * COMMAND_BYTES), COMMAND_BYTES, &g->template[5 * p]);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    g->key_valid = false;
}

void crowd_gpu_layer_set_extra(crowd_gpu_layer *g, GLuint buffer, uint32_t offset, uint32_t words)
{
    g->extra = buffer;
    g->extra_offset = offset;
    g->extra_words = words < CROWD_GPU_EXTRA_WORDS ? words : CROWD_GPU_EXTRA_WORDS;
}

void crowd_gpu_layer_invalidate(crowd_gpu_layer *g)
{
    g->key_valid = false;
}

bool crowd_gpu_layer_begin(crowd_gpu_layer *g, const void *key, size_t size, bool dirty)
{
    size = size < CROWD_GPU_KEY_MAX ? size : CROWD_GPU_KEY_MAX;
    if (!dirty && g->key_valid && size == g->key_size && !memcmp(key, g->key, size)) {
        g->passes_skipped++;
        return false;
    }
    memcpy(g->key, key, size);
    g->key_size = size;
    g->key_valid = true;
    /* counters back to zero on the GPU: a copy of the template, no CPU work per partition */
    glBindBuffer(GL_COPY_READ_BUFFER, g->template_commands);
    glBindBuffer(GL_COPY_WRITE_BUFFER, g->commands);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, sizeof g->template);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, g->ids);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, g->commands);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, g->state);
    g->passes_run++;
    return true;
}

void crowd_gpu_layer_end(crowd_gpu_layer *g)
{
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT |
                    GL_BUFFER_UPDATE_BARRIER_BIT);
    uint32_t i = g->ring_next;
    if (g->fence[i]) /* never read: a newer copy replaces it */
        glDeleteSync(g->fence[i]);
    glBindBuffer(GL_COPY_READ_BUFFER, g->commands);
    glBindBuffer(GL_COPY_WRITE_BUFFER, g->ring[i]);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, sizeof g->template);
    if (g->extra) {
        glBindBuffer(GL_COPY_READ_BUFFER, g->extra);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, g->extra_offset, sizeof g->template,
                            4 * (GLsizeiptr)g->extra_words);
    }
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    g->fence[i] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    g->ring_pass[i] = g->passes_run;
    g->ring_next = (i + 1) % CROWD_GPU_RING;
}

void crowd_gpu_layer_poll(crowd_gpu_layer *g)
{
    /* the oldest copy still pending: the one after the newest in ring order */
    uint32_t oldest = CROWD_GPU_RING;
    for (uint32_t k = 0; k < CROWD_GPU_RING; k++) {
        uint32_t i = (g->ring_next + k) % CROWD_GPU_RING;
        if (g->fence[i]) {
            oldest = i;
            break;
        }
    }
    if (oldest == CROWD_GPU_RING)
        return;
    GLint status = GL_UNSIGNALED;
    glGetSynciv(g->fence[oldest], GL_SYNC_STATUS, 1, NULL, &status);
    if (status != GL_SIGNALED)
        return;
    glDeleteSync(g->fence[oldest]);
    g->fence[oldest] = 0;
    glBindBuffer(GL_COPY_READ_BUFFER, g->ring[oldest]);
    const uint32_t *words =
        glMapBufferRange(GL_COPY_READ_BUFFER, 0, sizeof g->template + 4 * CROWD_GPU_EXTRA_WORDS, GL_MAP_READ_BIT);
    if (words) {
        for (uint32_t p = 0; p < CROWD_GPU_MAX_PARTITIONS; p++)
            g->late_counts[p] = words[5 * p + 1];
        for (uint32_t k = 0; k < g->extra_words; k++)
            g->late_extra[k] = words[5 * CROWD_GPU_MAX_PARTITIONS + k];
        g->late_pass = g->ring_pass[oldest];
        glUnmapBuffer(GL_COPY_READ_BUFFER);
    }
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
}

void crowd_gpu_layer_read(const crowd_gpu_layer *g, uint32_t counts[CROWD_GPU_MAX_PARTITIONS], uint32_t *ids)
{
    uint32_t words[5 * CROWD_GPU_MAX_PARTITIONS];
    glBindBuffer(GL_COPY_READ_BUFFER, g->commands);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, sizeof words, words);
    for (uint32_t p = 0; p < CROWD_GPU_MAX_PARTITIONS; p++)
        counts[p] = words[5 * p + 1];
    if (ids) {
        glBindBuffer(GL_COPY_READ_BUFFER, g->ids);
        glGetBufferSubData(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)g->partition_count * g->partition_capacity * 4, ids);
    }
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
}
#endif
