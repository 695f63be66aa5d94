void run_handlers(void);
void run_containers(void);
int main(void) {
  run_handlers();
  run_containers();
  return 0;
}
