/* One function on a second thread, and the wait for it (bk_internal.h): the one place the library
 * starts threads. */
#include "bk_internal.h"

#if defined(BK_NO_THREADS)
bool bk_thread_start(bk_thread *t, void (*fn)(void *), void *user)
{
    (void)t, (void)fn, (void)user;
    return false;
}
void bk_thread_join(bk_thread *t) { (void)t; }
#else
static void *trampoline(void *arg)
{
    bk_thread *t = arg;
    t->fn(t->user);
    return NULL;
}

bool bk_thread_start(bk_thread *t, void (*fn)(void *), void *user)
{
    t->fn = fn;
    t->user = user;
    return pthread_create(&t->th, NULL, trampoline, t) == 0;
}

void bk_thread_join(bk_thread *t) { pthread_join(t->th, NULL); }
#endif
