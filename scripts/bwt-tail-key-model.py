#!/usr/bin/env python3
# Model of tokens.cu's tail_key: the final sort's 13-bit key of a number's rest (its first 3
# base-11 digits, then 2 bits ranking the rests longer than 3 digits, which only the number
# wrapping around a block's end has) must order a slot's rests as their full 6-digit codes
# do. Random wrapped numbers of 1-6 digits beside numbers of at most 3: prints "bad 0".
# (Ranking every long rest 1 instead gives about 1,300 bad pairs.)
import random
P=[11**k for k in range(7)]
def code_of(d):  # digits string
    c=0
    for i in range(6): c=c*11+(int(d[i])+1 if i<len(d) else 0)
    return c
def tails(code,n): return [(code*P[j])%P[6] for j in range(n+1)]
def key(code,n,j):
    tail=(code*P[j])%P[6]; head=tail//P[3]
    if tail%P[3]==0: return head<<2
    below=sum(1 for o in tails(code,n) if o//P[3]==head and o%P[3]!=0 and o<tail)
    return head<<2|(1+below)
random.seed(1); bad=0
short=[str(v) for v in range(256)]+[str(v) for v in range(1000)]
for trial in range(50000):
    n=random.randint(1,6); d=''.join(random.choice('0123456789' if random.random()<.7 else '01') for _ in range(n))
    c=code_of(d)
    items=[(t,key(c,n,j)) for j,t in enumerate(tails(c,n))]
    for _ in range(3):
        s=random.choice(short); m=len(s); cs=code_of(s)
        items+= [(t,key(cs,m,j)) for j,t in enumerate(tails(cs,m))]
    for a in items:
        for b in items:
            if (a[1]<b[1]) != (a[0]<b[0]) or ((a[1]==b[1]) != (a[0]==b[0])): bad+=1
print("bad",bad)
