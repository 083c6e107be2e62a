// How a value stored as float is read back: as the double nearest to the shortest decimal
// that names the float (0.1f reads 0.1, not 0.10000000149011612). Printed in the shortest
// round-trip form of a double, that is the float's own shortest form, so a SAMPLED bucket
// shows the digits it holds and no others.
#pragma once

namespace perfdm {

double float_as_decimal(float x);

}  // namespace perfdm
