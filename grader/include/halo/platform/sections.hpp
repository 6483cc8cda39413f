// The two sections the CPU backend finds again at run time (platform::constant_section and
// callback_code_section), spelled as each object format wants them: ELF takes a bare name and
// makes __start_/__stop_ symbols for it; Mach-O wants "segment,section" (docs/platforms.md,
// "Native macOS, on paper"). Part of the platform layer, kept in the public include folder
// because kernel files see it through halo/cpu/cuda_dialect.hpp.
#pragma once

// As the executable's symbol table names the section of a __constant__ variable.
#define HALO_CONSTANT_SECTION_NAME "halo_constant"

#if defined(__APPLE__)
#define HALO_CONSTANT_SECTION "__DATA," HALO_CONSTANT_SECTION_NAME
#define HALO_CALLBACK_SECTION "__TEXT,halo_callbacks"
#else
#define HALO_CONSTANT_SECTION HALO_CONSTANT_SECTION_NAME
#define HALO_CALLBACK_SECTION "halo_callbacks"
#endif
