// The terminal of `perfdm top`, behind plain functions: curses' macros (timeout, erase, …)
// would clash with CAF's names in any file that includes both.
#pragma once

#include <string>
#include <vector>

namespace perfdm::terminal {

void start();  // full screen, keys unbuffered, no echo, no cursor
void stop();   // the terminal as it was
// The next key, waiting at most `ms` milliseconds; -1 for none.
int key(int ms);
void size(int& width, int& height);
// Draws `lines` from the top left, the first in reverse video.
void draw(const std::vector<std::string>& lines);

}  // namespace perfdm::terminal
