/* An executable without any symbol table: linked static without the C library (so no
   .dynsym) and stripped (-s, so no .symtab). The tests only read it; it never runs. */
void _start(void) {
  for (;;) {
  }
}
