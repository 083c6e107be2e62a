#include "cli/top_terminal.hpp"

#include <curses.h>

#include <clocale>

namespace perfdm::terminal {

void start() {
  std::setlocale(LC_ALL, "");  // the findings' em dash, in a UTF-8 terminal
  initscr();
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
}

void stop() {
  endwin();
}

int key(int ms) {
  timeout(ms);
  int k = getch();
  return k == ERR ? -1 : k;
}

void size(int& width, int& height) {
  getmaxyx(stdscr, height, width);
}

void draw(const std::vector<std::string>& lines) {
  for (int y = 0; y < static_cast<int>(lines.size()); ++y) {
    if (y == 0) attron(A_REVERSE);
    mvaddstr(y, 0, lines[static_cast<std::size_t>(y)].c_str());
    if (y == 0) attroff(A_REVERSE);
  }
  refresh();
}

}  // namespace perfdm::terminal
