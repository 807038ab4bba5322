/* The render-and-write floor for bench/export.sh: walks IN for *.md, renders each with libcmark
 * in-process (safe mode, as `notes export`) and writes OUT/<same path>.html. No page template,
 * no link rewriting, no index, no fsync: the least any exporter must do, at C speed.
 * Build: cc -O2 export_floor.c -lcmark -o export_floor;  run: export_floor IN OUT */
#define _XOPEN_SOURCE 700
#include <cmark.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *in_root, *out_root;
static size_t in_len;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)ftw;
    char out[4096];
    if (type == FTW_D) {
        snprintf(out, sizeof out, "%s%s", out_root, path + in_len);
        mkdir(out, 0755);
        return 0;
    }
    size_t len = strlen(path);
    if (type != FTW_F || len < 3 || strcmp(path + len - 3, ".md") != 0) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    char *text = malloc((size_t)st->st_size + 1);
    size_t got = fread(text, 1, (size_t)st->st_size, f);
    fclose(f);
    char *html = cmark_markdown_to_html(text, got, CMARK_OPT_DEFAULT);
    snprintf(out, sizeof out, "%s%.*s.html", out_root, (int)(len - in_len - 3), path + in_len);
    FILE *o = fopen(out, "wb");
    if (!o) return 1;
    fwrite(html, 1, strlen(html), o);
    fclose(o);
    free(html);
    free(text);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: export_floor IN OUT\n");
        return 2;
    }
    in_root = argv[1];
    out_root = argv[2];
    in_len = strlen(in_root);
    mkdir(out_root, 0755);
    return nftw(in_root, visit, 32, FTW_PHYS) == 0 ? 0 : 1;
}
