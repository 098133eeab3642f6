// Code addresses for people: which object (and symbol) an instruction address lies in,
// for the watchdog's reports and the count of where preemption signals were deferred.
// dladdr takes the loader's lock: call these from ordinary code, never a signal handler.
#pragma once

#include <cstdint>
#include <string>

namespace quanta {

// "libfoo.so (spin_forever+0x12)", "quanta (+0xa9b5b)" without a dynamic symbol, the hex
// address when no loaded object holds it.
std::string describe_code_address(uintptr_t pc);

// "libfoo.so", "quanta"; "unknown" when no loaded object holds the address.
std::string code_object_name(uintptr_t pc);

}  // namespace quanta
