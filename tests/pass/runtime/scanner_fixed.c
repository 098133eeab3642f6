/* A word scanner, compiled with fixed clock strides and probe counting
 * (-quanta-adaptive=0 -quanta-count-probes): the test counts how many probes its skip loop
 * reaches when almost every entry of that loop is shorter than the loop's stride. */
#include "handlers.h"

uint64_t count_words(const char* text, uint64_t n) {
  uint64_t words = 0, i = 0;
  while (i < n) {
    while (i < n && text[i] == ' ') i++;  /* entered once per word, left at its first byte */
    if (i >= n) break;
    words++;
    while (i < n && text[i] != ' ') i++;
  }
  return words;
}
