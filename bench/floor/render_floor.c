/* The render floor for bench/render.sh: reads one Markdown file whole, renders it with libcmark
 * called in-process (safe mode, as `notes render --commonmark`) and writes the HTML to stdout.
 * No streaming of the input in 4 KB pieces as the cmark CLI does, no option parsing: the least
 * a program that renders a file with libcmark must do.
 * Build: cc -O2 render_floor.c -lcmark -o render_floor;  run: render_floor FILE > OUT */
#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: render_floor FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) return 1;
    char *text = malloc((size_t)st.st_size + 1);
    size_t got = fread(text, 1, (size_t)st.st_size, f);
    fclose(f);
    char *html = cmark_markdown_to_html(text, got, CMARK_OPT_DEFAULT);
    size_t len = strlen(html);
    int failed = fwrite(html, 1, len, stdout) != len;
    free(html);
    free(text);
    return failed;
}
