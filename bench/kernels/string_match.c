/* Finds which words of a text hash to one of a few keys (Phoenix string_match). */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

const char kernel_name[] = "string_match";
enum { TEXT = 6 << 20 };
static char* text;
static const char* keys[] = {"helloworld", "howareyou", "ferrari", "whotheman"};

void kernel_init(void) {
  uint64_t s = 9;
  text = malloc(TEXT + 1);
  for (int i = 0; i < TEXT; i++) {
    uint64_t r = kernel_rand(&s);
    text[i] = (r % 7 == 0) ? '\n' : (char)('a' + (r >> 20) % 26);
  }
  text[TEXT] = 0;
  memcpy(text + 1000, "\nferrari\n", 9);
}

static uint64_t hash_word(const char* w, int n) {
  uint64_t h = 5381;
  for (int i = 0; i < n; i++) h = h * 33 + (unsigned char)w[i];
  return h;
}

uint64_t kernel_run(void) {
  uint64_t key_hash[4];
  for (int k = 0; k < 4; k++) key_hash[k] = hash_word(keys[k], (int)strlen(keys[k]));
  uint64_t found = 0, words = 0, h = 0;
  int start = 0;
  for (int i = 0; i <= TEXT; i++) {
    if (text[i] == '\n' || text[i] == 0) {
      uint64_t wh = hash_word(text + start, i - start);
      for (int k = 0; k < 4; k++)
        if (wh == key_hash[k]) { found++; h ^= (uint64_t)start * (k + 1); }
      h += wh & 0xff;
      words++;
      start = i + 1;
    }
  }
  return h * 31 + found * 1000003 + words;
}
