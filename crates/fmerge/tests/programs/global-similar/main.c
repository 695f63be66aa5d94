#include <stdio.h>
unsigned checksum_x(const unsigned char *p, int n, int rounds);
unsigned checksum_y(const unsigned char *p, int n, int rounds);
int main(void) {
  unsigned char buf[200];
  for (int i = 0; i < 200; i++) buf[i] = (unsigned char)(i * 37 + 11);
  printf("%u %u\n", checksum_x(buf, 200, 50), checksum_y(buf, 200, 50));
  printf("%u %u\n", checksum_x(buf + 3, 150, 7), checksum_y(buf + 5, 120, 9));
  return 0;
}
