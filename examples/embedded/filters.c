/* Firmware-style code for a microcontroller (no operating system, no C library): sensor
 * filters and checksums written once per channel, as they often are, which fmerge merges. */
#include <stdint.h>

typedef struct {
  int32_t acc;
  int32_t last;
  uint32_t count;
} channel;

int32_t filter_temperature(channel *c, int32_t sample) {
  int32_t d = sample - c->last;
  if (d > 200 || d < -200) sample = c->last + (d > 0 ? 200 : -200);
  c->acc += (sample - c->acc) >> 3;
  c->last = sample;
  c->count++;
  return c->acc;
}

int32_t filter_pressure(channel *c, int32_t sample) {
  int32_t d = sample - c->last;
  if (d > 500 || d < -500) sample = c->last + (d > 0 ? 500 : -500);
  c->acc += (sample - c->acc) >> 3;
  c->last = sample;
  c->count++;
  return c->acc;
}

int32_t filter_humidity(channel *c, int32_t sample) {
  int32_t d = sample - c->last;
  if (d > 50 || d < -50) sample = c->last + (d > 0 ? 50 : -50);
  c->acc += (sample - c->acc) >> 3;
  c->last = sample;
  c->count++;
  return c->acc;
}

uint16_t crc16_uart(const uint8_t *p, uint32_t n) {
  uint16_t crc = 0xffff;
  while (n--) {
    crc ^= *p++;
    for (int i = 0; i < 8; i++) crc = (crc & 1) ? (crc >> 1) ^ 0xa001 : crc >> 1;
  }
  return crc;
}

uint16_t crc16_spi(const uint8_t *p, uint32_t n) {
  uint16_t crc = 0xffff;
  while (n--) {
    crc ^= *p++;
    for (int i = 0; i < 8; i++) crc = (crc & 1) ? (crc >> 1) ^ 0xa001 : crc >> 1;
  }
  return crc;
}

uint16_t crc16_radio(const uint8_t *p, uint32_t n) {
  uint16_t crc = 0;
  while (n--) {
    crc ^= *p++;
    for (int i = 0; i < 8; i++) crc = (crc & 1) ? (crc >> 1) ^ 0x8408 : crc >> 1;
  }
  return crc;
}
