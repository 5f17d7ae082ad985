// The translation unit that builds a precompiled header for the other targets to reuse
// (cmake/Precompiled.cmake); it holds nothing of its own.
