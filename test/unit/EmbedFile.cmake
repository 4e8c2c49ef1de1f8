# Writes INPUT into OUTPUT as a C++ header defining `inline constexpr const char NAME[]` (a raw string).
file(READ ${INPUT} content)
file(WRITE ${OUTPUT} "// Generated from ${INPUT}; do not edit.\n#pragma once\ninline constexpr const char ${NAME}[] = R\"brick_embed(${content})brick_embed\";\n")
