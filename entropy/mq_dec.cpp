// The fast MQ decoder and raw reader are header-only (mq_dec.h) so that Tier-1 inlines them.
#include "entropy/mq_dec.h"
