import subprocess, re
MC='/usr/lib/llvm-19/bin/llvm-mc'
PAD=0xbf800000  # s_nop 0
SENT=0xbf9200ee # s_trap 0xee
def wb(w): return ' '.join('0x%02x'%((w>>(8*k))&255) for k in range(4))
def _probe(cands, cpu):
    lines=[]
    for c in cands:
        lines.append(' '.join(wb(w) for w in c))
        lines.append(' '.join(wb(w) for w in [PAD]*5+[SENT]))
    src='\n'.join(lines)+'\n'
    p=subprocess.run([MC,'-triple=amdgcn','-mcpu='+cpu,'--disassemble'],input=src,capture_output=True,text=True)
    rej=set()
    for m in re.finditer(r'<stdin>:(\d+):(\d+): warning: invalid instruction encoding',p.stderr):
        ln=int(m.group(1)); col=int(m.group(2))
        if ln%2==1 and col==1: rej.add((ln-1)//2)
    outs=[l.strip() for l in p.stdout.split('\n') if l.startswith('\t') and l.strip()!='.text']
    groups=[]; cur=[]
    for o in outs:
        if o=='s_trap 0xee':
            groups.append(cur); cur=[]
        else: cur.append(o)
    if p.returncode!=0 or len(groups)!=len(cands): return None
    res=[]
    for i,g in enumerate(groups):
        if i in rej: res.append(None); continue
        res.append(g[0] if g else '?')
    return res
def probe(cands, cpu='gfx1013'):
    """cands: list of word lists. returns list of text, None (rejected), '?' (nothing), 'CRASH'"""
    cands=[c if c[0]!=SENT else [PAD] for c in cands]
    if not cands: return []
    r=_probe(cands,cpu)
    if r is not None: return r
    if len(cands)==1: return ['CRASH']
    h=len(cands)//2
    return probe(cands[:h],cpu)+probe(cands[h:],cpu)
if __name__=='__main__':
    print(probe([[0x34020084],[0xffffffff],[0xd564000a,0x02020d04],[0x7e0202ff,0x3f800000]]))
