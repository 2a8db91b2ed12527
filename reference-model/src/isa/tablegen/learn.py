"""Learn per-opcode operand templates by probing llvm-mc (perturbation of each field)."""
from probe import probe
import itertools, json, sys, re

def split_ops(text):
    """mnemonic, operand tokens (top-level ', ' split; trailing ' mods' kept separately)"""
    if ' ' not in text: return text, [], ''
    mn, rest = text.split(' ', 1)
    toks=[]; depth=0; cur=''
    i=0
    while i < len(rest):
        ch=rest[i]
        if rest[i:i+2]=='/*': depth+=1
        if rest[i:i+2]=='*/': depth-=1
        if ch in '[(': depth+=1
        if ch in '])': depth-=1
        if depth==0 and rest[i:i+2]==', ':
            toks.append(cur); cur=''; i+=2; continue
        cur+=ch; i+=1
    toks.append(cur)
    # modifiers: after last token split on space when outside brackets
    last=toks[-1]; depth=0; cut=None
    for j,ch in enumerate(last):
        if last[j:j+2]=='/*': depth+=1
        if last[j:j+2]=='*/': depth-=1
        if ch in '[(': depth+=1
        if ch in '])': depth-=1
        if ch==' ' and depth==0: cut=j; break
    mods=''
    if cut is not None:
        mods=last[cut+1:]; toks[-1]=last[:cut]
    return mn, toks, mods

class Field:
    def __init__(s, name, word, lo, width, base, alt, optional=True):
        s.name=name; s.word=word; s.lo=lo; s.width=width; s.base=base; s.alt=alt; s.optional=optional

def build(nwords, prefix, fields, vals):
    w=list(prefix)+[0]*(nwords-len(prefix))
    for f in fields:
        v=vals.get(f.name, f.base)
        w[f.word] |= (v & ((1<<f.width)-1)) << f.lo
    return w

def learn(cpu, ops, nwords, prefix_of, fields, tail=[0x11]):
    """ops: list of op ids; prefix_of(op)-> base words (with op bits). returns dict op -> info"""
    info={}
    # 1: base, with zeroing subsets of optional fields
    opt=[f for f in fields if f.optional]
    subsets=[()]
    for r in range(1,len(opt)+1):
        subsets+=list(itertools.combinations([f.name for f in opt], r))
    pending=list(ops)
    for sub in subsets:
        if not pending: break
        cands=[]
        for op in pending:
            vals={n:0 for n in sub}
            cands.append(build(nwords,prefix_of(op),fields,vals)+tail)
        out=probe(cands,cpu)
        nxt=[]
        for op,c,o in zip(pending,cands,out):
            if o and o not in ('?','CRASH'): info[op]={'zeroed':list(sub),'text':o,'words':c[:nwords]}
            else: nxt.append(op)
        pending=nxt
    # 2: perturb each field
    cands=[];keys=[]
    for op,d in info.items():
        for f in fields:
            if f.name in d['zeroed']: continue
            vals={n:0 for n in d['zeroed']}; vals[f.name]=f.alt
            cands.append(build(nwords,prefix_of(op),fields,vals)+tail); keys.append((op,f.name))
    out=probe(cands,cpu)
    for (op,fn),o in zip(keys,out):
        d=info[op]
        mn,toks,mods=split_ops(d['text'])
        d['mn']=mn; d['toks']=toks; d['mods']=mods
        d.setdefault('map',{}); d.setdefault('reject',[])
        if not o or o in ('?','CRASH'): d['reject'].append(fn); continue
        mn2,toks2,mods2=split_ops(o)
        ch=[i for i in range(max(len(toks),len(toks2))) if i>=len(toks) or i>=len(toks2) or toks[i]!=toks2[i]]
        if mods2!=mods: ch.append('mods')
        if mn2!=mn: ch.append('mn')
        d['map'][fn]=ch
    return info

def flips(cpu, info, nwords, skipmask, tail=[0x11]):
    """flip every bit not in skipmask[word]; record reject mask and changed texts"""
    cands=[];keys=[]
    for op,d in info.items():
        for wi in range(nwords):
            for b in range(32):
                if skipmask[wi]>>b & 1: continue
                w=list(d['words']); w[wi]^=1<<b
                cands.append(w+tail); keys.append((op,wi,b))
    out=probe(cands,cpu)
    for (op,wi,b),o in zip(keys,out):
        d=info[op]; d.setdefault('rej',[0]*nwords); d.setdefault('fliptext',{})
        if not o or o in ('?','CRASH'): d['rej'][wi]|=1<<b
        elif o!=d['text']: d['fliptext']['%d.%d'%(wi,b)]=o
