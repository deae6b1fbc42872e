#!/usr/bin/env python3
# Model of cuda/bzip2/tokens.cu (a round of copies, empty slots, the numbers' table) against a naive transform.
import random, bisect, sys
P=[11**i for i in range(7)]
def naive(block):
    L=len(block); rots=sorted(range(L), key=lambda q: block[q:]+block[:q]); return ''.join(block[q-1] for q in rots)
def slice_blocks(text, limit):
    out=[]; s=0
    while s < len(text):
        e=min(len(text), s+limit); out.append((s,e)); s=e
    return out
def digits_code(d):  # string of digits
    c=0
    for i in range(6): c=c*11+(int(d[i])+1 if i<len(d) else 0)
    return c
def digit_at(code,i): return (code//P[5-i])%11
def digit_count(code):
    n=0
    while n<6 and digit_at(code,n)!=0: n+=1
    return n
def model(samples_list, limit, per_perm):
    texts=[' '.join(map(str,s)) for s in samples_list]
    L=len(texts[0]); assert all(len(t)==L for t in texts)
    text=''.join(texts); total=len(text)
    begin=[];length=[]
    for p,t in enumerate(texts):
        bl=slice_blocks(t, limit); assert len(bl)<=per_perm
        for (s,e) in bl: begin.append(p*L+s); length.append(e-s)
        for _ in range(per_perm-len(bl)): begin.append((p+1)*L); length.append(0)
    slots=len(begin)
    numbers=sorted(set(digits_code(str(v)) for s in samples_list for v in s))
    spaces=[i for i,c in enumerate(text) if c==' ']
    tb=[bisect.bisect_left(spaces,begin[b]) for b in range(slots)]
    tl=[bisect.bisect_left(spaces,begin[b]+length[b])-tb[b] for b in range(slots)]
    if any(length[b]>0 and tl[b]==0 for b in range(slots)): return None
    def slot_of(g):
        lo,hi=0,slots
        while hi-lo>1:
            mid=(lo+hi)//2
            if tb[mid]<=g: lo=mid
            else: hi=mid
        return lo
    s=len(spaces); dig=[0]*s; code=[0]*s
    for g in range(s):
        b=slot_of(g); first=tb[b]; cnt=tl[b]; bg=begin[b]; ln=length[b]
        start=spaces[g]+1; end=spaces[g+1] if g+1<first+cnt else spaces[first]+ln
        n=end-start; assert n<=6
        c=0
        for i in range(6):
            at=start+i
            if at>=bg+ln: at-=ln
            c=c*11+(int(text[at])+1 if i<n else 0)
        dig[g]=c; lo=bisect.bisect_left(numbers,c); code[g]=2*lo+(1 if lo<len(numbers) and numbers[lo]==c else 0)
    # sort_rotations' result: tokens by (slot, cyclic code sequence); ties (identical) any order
    def rot(g):
        b=slot_of(g); first=tb[b]; cnt=tl[b]; o=g-first
        return (b, [code[first+(o+i)%cnt] for i in range(cnt)])
    order=sorted(range(s), key=rot)
    counts=[];
    def before(r):
        b=slot_of(r); u=order[r]; return (tb[b]+tl[b]-1 if u==tb[b] else u-1), b
    for r in range(s):
        k,b=before(r); counts.append(digit_count(dig[k])+1)
    off=[0]*s
    for r in range(1,s): off[r]=off[r-1]+counts[r-1]
    assert off[-1]+counts[-1]==total
    keys=[None]*total; chars=[None]*total
    for r in range(s):
        k,b=before(r); c=dig[k]; n=digit_count(c)
        for j in range(n+1):
            tail=(c*P[j])%P[6]; keys[off[r]+j]=(b<<21)|tail
            chars[off[r]+j]=' ' if j==0 else chr(ord('0')+digit_at(c,j-1)-1)
    idx=sorted(range(total), key=lambda i: keys[i])  # stable
    last=''.join(chars[i] for i in idx)
    want=''.join(naive(text[begin[b]:begin[b]+length[b]]) for b in range(slots) if length[b]>0)
    return last==want
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 1)
ok=0; fb=0; bad=0
for trial in range(400):
    copies=random.randint(1,4); n=random.randint(1,60)
    kind=trial%4
    base=[random.randint(0,255) if kind==0 else random.randint(0,1) if kind==1 else random.choice([0,5,10,100,255]) if kind==2 else 7 for _ in range(n)]
    samples=[random.sample(base,len(base)) for _ in range(copies)]
    L=len(' '.join(map(str,base)))
    limit=random.choice([L, max(1,L//3), 5, 2, 1, 13])
    per_perm=-(-L//limit)+random.randint(0,2)
    r=model(samples, limit, per_perm)
    if r is None: fb+=1
    elif r: ok+=1
    else: bad+=1
print('ok',ok,'fallback',fb,'bad',bad)
