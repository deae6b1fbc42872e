#!/usr/bin/env python3
# Model of cuda/bzip2/coding.cu's for_tile_groups (choose_kernel, data_bits_kernel): every
# group of a CTA's chunk gets exactly its own values from the shared-memory tile, for random
# value counts (partial last groups, odd counts, chunks and tiles cut anywhere). Prints "bad 0".
import random
T=256; GP=25; GS=50; CHUNK=1024
bad=0
for trial in range(600):
    n_mtf=random.randint(1,60000) if trial%3 else random.randint(1,600)
    vals=[random.randint(0,20) for _ in range(n_mtf)]
    pairs=[vals[2*i] | ((vals[2*i+1] if 2*i+1<n_mtf else random.randint(0,9)) <<16) for i in range((n_mtf+1)//2)]
    groups=(n_mtf+GS-1)//GS
    for cx in range((groups+CHUNK-1)//CHUNK+1):
        first=cx*CHUNK
        if first>=groups: continue
        last=min(groups,first+CHUNK)
        seen=set()
        for g0 in range(first,last,T):
            p0=g0*GP; pn=min((n_mtf+1)//2, min(last,g0+T)*GP)-p0
            tile=[None]*(T*GP)
            for p in range(pn): tile[p]=pairs[p0+p]
            for k in range(T):
                g=g0+k
                if g>=last: continue
                count=min(GS, n_mtf-g*GS)
                got=[]
                for i in range(0,(count+1)//2):
                    w=tile[k*GP+i]
                    if w is None: bad+=1; break
                    got.append(w&0xffff)
                    if 2*i+1<count: got.append(w>>16)
                if got!=vals[g*GS:g*GS+count]: bad+=1
                seen.add(g)
        if seen!=set(range(first,last)): bad+=1
print("bad",bad)
