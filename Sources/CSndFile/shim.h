#include <sndfile.h>
#include <samplerate.h>
